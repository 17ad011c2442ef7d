// apache-crypt ships no types, and apache-md5's say `export default` for what is
// `module.exports = fn`, which nodenext reads as an object with a `default` key.
// Both export one function: hash(password, salt-or-stored-hash).

declare module 'apache-crypt' {
  export default function crypt(password: string, salt: string): string;
}

declare module 'apache-md5' {
  export default function aprMd5(password: string, salt: string): string;
}

// express.static over extracted files: what serving from disk with express costs.
import express from 'express';

const [root, port] = process.argv.slice(2);
const app = express();
app.use(express.static(root, { maxAge: 31536000000 }));
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));

import { describe, expect, it } from '@jest/globals';
import { fillTemplate, packageNameFrom, titleFrom } from '../../../src/domain/package/template-values.js';

describe('template values', () => {
  it('escapes each value for the file it lands in and leaves unknown placeholders alone', () => {
    const values = { description: 'a "quoted" <b>&\'s' };
    expect(fillTemplate('metadata.json', '{"d": "{{description}}", "x": "{{unknown}}"}', values)).toBe('{"d": "a \\"quoted\\" <b>&\'s", "x": "{{unknown}}"}');
    expect(JSON.parse(fillTemplate('metadata.json', '{"d": "{{description}}"}', values)).d).toBe(values.description);
    expect(fillTemplate('content/index.html', '<p>{{description}}</p>', values)).toBe('<p>a &#34;quoted&#34; &#60;b&#62;&#38;&#39;s</p>');
    expect(fillTemplate('tests/a.yaml', 'x: "{{description}}"', values)).toBe('x: "a \\"quoted\\" <b>&\'s"');
    expect(fillTemplate('content/a.css', '/* {{description}} */', values)).toBe(`/* ${values.description} */`);
  });

  it('makes a kebab-case package name and a title of a directory name', () => {
    expect(packageNameFrom('My Café 2')).toBe('my-cafe-2');
    expect(packageNameFrom('--Résumé__Site--')).toBe('resume-site');
    expect(titleFrom('my-cafe-2')).toBe('My cafe 2');
  });
});

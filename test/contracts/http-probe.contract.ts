import { describe, expect, it } from '@jest/globals';
import type { HttpProbe } from '../../src/application/ports/http-probe.js';
import type { ScriptedPage } from '../fakes/scripted-http-probe.js';
import { eachSubject, type Subject } from './subject.js';

export interface HttpProbeSubject {
  probe: HttpProbe;
  /** `http://host:port` of the server the probe asks. */
  origin: string;
  /** What the server answers, by path and query: a path not listed is a 404 with the body "not found". */
  serve(pages: Record<string, ScriptedPage>): void;
  /** An origin where nothing answers. */
  unreachable: string;
}

/** The promises of the HttpProbe port (src/application/ports/http-probe.ts): plain GETs, answered as they are. */
export function describeHttpProbeContract(name: string, makeSubject: () => Promise<Subject<HttpProbeSubject>> | Subject<HttpProbeSubject>): void {
  describe(`${name} keeps the HttpProbe contract`, () => {
    const subject = eachSubject(makeSubject);

    it('answers a page\'s status, content type and body', async () => {
      subject().serve({ '/': { status: 200, body: '<title>Demo</title>', type: 'text/html; charset=utf-8' }, '/data?x=1': { status: 201, body: '{"x":1}', type: 'application/json' } });
      expect(await subject().probe.get(`${subject().origin}/`)).toEqual({ status: 200, contentType: 'text/html; charset=utf-8', body: '<title>Demo</title>' });
      expect(await subject().probe.get(`${subject().origin}/data?x=1`)).toEqual({ status: 201, contentType: 'application/json', body: '{"x":1}' });
    });

    it('answers a failure status as it is, and no content type when there is none', async () => {
      subject().serve({ '/broken': { status: 500, body: 'oops' } });
      expect(await subject().probe.get(`${subject().origin}/broken`)).toEqual({ status: 500, contentType: undefined, body: 'oops' });
      expect(await subject().probe.get(`${subject().origin}/missing`)).toMatchObject({ status: 404, body: 'not found' });
      expect(await subject().probe.get(`${subject().origin}/data?x=2`)).toMatchObject({ status: 404 });
    });

    it('does not follow a redirect', async () => {
      subject().serve({ '/old': { status: 302, body: '', type: 'text/plain' }, '/new': { status: 200, body: 'new' } });
      expect(await subject().probe.get(`${subject().origin}/old`)).toMatchObject({ status: 302 });
    });

    it('fails where nothing answers', async () => {
      await expect(subject().probe.get(`${subject().unreachable}/`)).rejects.toThrow();
    });
  });
}

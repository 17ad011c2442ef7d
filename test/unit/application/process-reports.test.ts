import { describe, expect, it } from '@jest/globals';
import type { ProcessReport, ReactorProcesses } from '../../../src/application/ports/reactor-processes.js';
import { ReactorLog, mergeLogLines, sumRequestCounts } from '../../../src/application/serving/process-reports.js';
import { RequestLog } from '../../../src/application/serving/request-log.js';

/** Several processes of one reactor in one: gathering asks each log's answerer in turn. */
class LocalProcesses {
  readonly answerers: Array<Map<ProcessReport, (argument: number) => unknown>> = [];

  member(): ReactorProcesses {
    const answers = new Map<ProcessReport, (argument: number) => unknown>();
    this.answerers.push(answers);
    return { started: new Date(0), gather: (report, argument) => this.gather(report, argument), answer: (report, answer) => void answers.set(report, answer) };
  }

  async gather(report: ProcessReport, argument: number): Promise<unknown[]> {
    return this.answerers.map((answers) => answers.get(report)!(argument));
  }
}

const at = (seconds: number) => Date.UTC(2026, 0, 1, 0, 0, seconds);

describe('reports of a reactor that runs as several processes', () => {
  it('sums request counts, status by status, in status order', () => {
    expect(
      sumRequestCounts([
        { requestsTotal: 3, requestsByStatus: { '200': 2, '404': 1 } },
        { requestsTotal: 2, requestsByStatus: { '201': 1, '200': 1 } },
        { requestsTotal: 0, requestsByStatus: {} },
      ]),
    ).toEqual({ requestsTotal: 5, requestsByStatus: { '200': 3, '201': 1, '404': 1 } });
  });

  it('merges access lines by their time, oldest first, keeping each process\'s order and only the last asked for', () => {
    const one = ['2026-01-01T00:00:01.000Z GET /a -> 200', '2026-01-01T00:00:03.000Z GET /c -> 200', '2026-01-01T00:00:03.000Z GET /d -> 200'];
    const two = ['2026-01-01T00:00:02.000Z GET /b -> 200', '2026-01-01T00:00:04.000Z GET /e -> 404'];
    expect(mergeLogLines([one, two], 10).map((line) => line.split(' ')[2])).toEqual(['/a', '/b', '/c', '/d', '/e']);
    expect(mergeLogLines([one, two], 2).map((line) => line.split(' ')[2])).toEqual(['/d', '/e']);
    expect(mergeLogLines([one, two], 0)).toEqual([]);
  });

  it('answers metrics and logs of the whole reactor from every process\'s log, or this one\'s alone', async () => {
    const processes = new LocalProcesses();
    const [first, second] = [new RequestLog(), new RequestLog()];
    const [here] = [new ReactorLog(first, processes.member()), new ReactorLog(second, processes.member())];
    first.record('GET', '/a', 200, at(1));
    second.record('POST', '/b', 201, at(2));
    second.record('GET', '/c', 404, at(3));
    expect(await here!.counts()).toEqual({ requestsTotal: 3, requestsByStatus: { '200': 1, '201': 1, '404': 1 } });
    expect(await here!.last(2)).toEqual(['2026-01-01T00:00:02.000Z POST /b -> 201', '2026-01-01T00:00:03.000Z GET /c -> 404']);
    const alone = new ReactorLog(first, undefined);
    expect(await alone.counts()).toEqual({ requestsTotal: 1, requestsByStatus: { '200': 1 } });
    expect(await alone.last(5)).toEqual(['2026-01-01T00:00:01.000Z GET /a -> 200']);
  });
});

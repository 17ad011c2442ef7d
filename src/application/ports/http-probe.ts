export interface ProbeResponse {
  status: number;
  contentType: string | undefined;
  body: string;
}

/** Makes plain HTTP requests, as a package test does against a running reactor. */
export interface HttpProbe {
  get(url: string): Promise<ProbeResponse>;
}

import type { RequestHandler } from 'express';
import type { GraphqlEndpointOptions } from './graphql-endpoint.js';
import type { PackageDatasets } from '../../../application/data/package-datasets.js';
import type { DataSet } from '../../../domain/package/storage.js';

/**
 * `<mount>/graphql`, built on its first request: graphql and graphql-http are a quarter
 * of the bundle, and a reactor start that loads them before any GraphQL request pays
 * for them in start-up time and memory for nothing.
 */
export function lazyGraphqlEndpoint(datasets: () => PackageDatasets, dataSets: () => Record<string, DataSet>, options: GraphqlEndpointOptions): RequestHandler {
  let built: { of: PackageDatasets; endpoint: Promise<RequestHandler> } | undefined;
  return (request, response, next) => {
    // A package reloaded while served (`--watch`) has new datasets: the schema is built again for them.
    const current = datasets();
    if (built?.of !== current) {
      const schemaOf = dataSets();
      built = {
        of: current,
        endpoint: Promise.all([import('./dataset-schema.js'), import('./graphql-endpoint.js')]).then(([{ buildDatasetSchema }, { createGraphqlEndpoint }]) =>
          createGraphqlEndpoint(buildDatasetSchema(current, schemaOf)!, options),
        ),
      };
    }
    // A throw in the handler is the request's error too, not a rejection nobody hears.
    built.endpoint.then((handle) => handle(request, response, next)).catch(next);
  };
}

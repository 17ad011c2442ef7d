import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { DatasetSchemas } from './dataset-schema.js';
import { WHOLE_VIEW_KEY } from '../../../application/auth/dataset-access.js';
import { ViewCache } from '../view-cache.js';
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
        endpoint: Promise.all([import('./dataset-schema.js'), import('./graphql-endpoint.js')]).then(([{ datasetSchemas }, { createGraphqlEndpoint }]) =>
          createGraphqlEndpoint(schemaPerView(datasetSchemas(current, schemaOf)!, options.view), options),
        ),
      };
    }
    // A throw in the handler is the request's error too, not a rejection nobody hears.
    built.endpoint.then((handle) => handle(request, response, next)).catch(next);
  };
}

/**
 * The schema a request is shown: of the datasets it may read, built once per view (the
 * GraphQL endpoint's gate refuses a request that may read none before it gets here).
 */
function schemaPerView(schemas: DatasetSchemas, view: GraphqlEndpointOptions['view']): GraphQLSchema | ((request: IncomingMessage) => GraphQLSchema) {
  if (!view) return schemas.whole;
  const parts = new ViewCache<GraphQLSchema>();
  return (request) => {
    const { key, readable } = view(request, schemas.ids);
    return key === WHOLE_VIEW_KEY ? schemas.whole : parts.get(schemas, key, () => schemas.part(readable));
  };
}

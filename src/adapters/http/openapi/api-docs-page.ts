import { ownPageCsp } from '../page-csp.js';
import { API_DOCS_ASSETS_PATH } from '../../../domain/serving/reactor-paths.js';
import { API_DOCS_ASSETS } from './api-docs-asset-list.js';

/** Starts Swagger UI on the mount's description, beside this page; without it, the link stays. */
const BOOTSTRAP = `
window.addEventListener('DOMContentLoaded', function () {
  if (!window.SwaggerUIBundle) return;
  try {
    window.SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui', deepLinking: true });
    document.getElementById('fallback').hidden = true;
  } catch (error) {
    console.error('Swagger UI did not start; the link stays', error);
  }
});
`;

/**
 * `<mount>/api/v1/`: the mount's data API as a page (Swagger UI, loaded from the reactor
 * itself), over a link to the JSON description that stays when the scripts do not run.
 * Nothing from the request is written into it.
 */
export const API_DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Data API</title>
<link rel="stylesheet" href="${API_DOCS_ASSETS_PATH}${API_DOCS_ASSETS.css.name}">
<script defer src="${API_DOCS_ASSETS_PATH}${API_DOCS_ASSETS.bundle.name}"></script>
</head>
<body>
<p id="fallback" style="font: 14px system-ui, sans-serif; padding: 1rem">This mount's data API is described in <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
<div id="swagger-ui"></div>
<script>${BOOTSTRAP}</script>
</body>
</html>
`;

/** The page's Content-Security-Policy (see ownPageCsp). */
export const API_DOCS_PAGE_CSP = ownPageCsp(BOOTSTRAP);

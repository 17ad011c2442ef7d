import { ownPageCsp } from '../page-csp.js';
import { GRAPHIQL_ASSETS_PATH } from '../../../domain/serving/reactor-paths.js';
import { GRAPHIQL_ASSETS } from './graphiql-asset-list.js';

const asset = (key: keyof typeof GRAPHIQL_ASSETS) => GRAPHIQL_ASSETS_PATH + GRAPHIQL_ASSETS[key].name;

/**
 * The page's own script: wires the form (which works without GraphiQL), then starts
 * GraphiQL once its deferred scripts ran, if they did. It reads its URL itself: nothing
 * from the request is written into the HTML. Hashed as it stands between its tags (see CSP).
 */
const BOOTSTRAP = `
(function () {
  var endpoint = window.location.pathname;
  var form = document.getElementById('fallback');
  var query = document.getElementById('query');
  var variables = document.getElementById('variables');
  var result = document.getElementById('result');
  var initial = new URLSearchParams(window.location.search).get('query');
  if (initial) query.value = initial;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var body = { query: query.value };
    if (variables.value.trim() !== '') {
      try { body.variables = JSON.parse(variables.value); }
      catch (error) { result.textContent = 'Variables are not valid JSON: ' + error.message; return; }
    }
    result.textContent = 'Running…';
    fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify(body) })
      .then(function (response) { return response.text().then(function (text) { return response.status + ' ' + response.statusText + '\\n' + pretty(text); }); })
      .then(function (text) { result.textContent = text; }, function (error) { result.textContent = 'Request failed: ' + error.message; });
  });
  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (error) { return text; }
  }
  document.addEventListener('DOMContentLoaded', function () {
    if (!window.React || !window.ReactDOM || !window.GraphiQL || !window.ReactDOM.createRoot) return;
    try {
      var element = document.getElementById('graphiql');
      var props = { fetcher: window.GraphiQL.createFetcher({ url: endpoint }) };
      if (initial) props.defaultQuery = initial;
      window.ReactDOM.createRoot(element).render(window.React.createElement(window.GraphiQL, props));
      element.hidden = false;
      form.hidden = true;
    } catch (error) {
      console.error('GraphiQL did not start; the form stays', error);
    }
  });
})();
`;

/**
 * GraphiQL, loaded from the reactor itself (`GRAPHIQL_ASSETS_PATH`), over a plain form
 * that stays when GraphiQL's scripts do not run: the form is in the page and wired
 * before them (they are deferred). The page names no other host.
 */
export const GRAPHIQL_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL</title>
<link rel="stylesheet" href="${asset('graphiqlCss')}">
<script defer src="${asset('react')}"></script>
<script defer src="${asset('reactDom')}"></script>
<script defer src="${asset('graphiql')}"></script>
<style>
  html, body { height: 100%; margin: 0; }
  #graphiql { height: 100vh; }
  #fallback { font: 14px system-ui, sans-serif; padding: 1rem; max-width: 60rem; }
  #fallback textarea { width: 100%; font: 13px ui-monospace, monospace; box-sizing: border-box; }
  #fallback pre { background: #f4f4f4; padding: .75rem; overflow: auto; white-space: pre-wrap; }
</style>
</head>
<body>
<div id="graphiql" hidden></div>
<form id="fallback">
  <p>GraphQL endpoint. The GraphiQL editor could not be started (its scripts come from this reactor, below ${GRAPHIQL_ASSETS_PATH}); this form sends queries instead.</p>
  <label for="query">Query</label>
  <textarea id="query" name="query" rows="12" spellcheck="false">{
  __schema { queryType { fields { name } } mutationType { fields { name } } }
}</textarea>
  <label for="variables">Variables (JSON, optional)</label>
  <textarea id="variables" name="variables" rows="4" spellcheck="false"></textarea>
  <p><button type="submit">Run</button></p>
  <pre id="result" aria-live="polite"></pre>
</form>
<script>${BOOTSTRAP}</script>
</body>
</html>
`;

/** The page's Content-Security-Policy (see ownPageCsp). */
export const GRAPHIQL_PAGE_CSP = ownPageCsp(BOOTSTRAP);

const CDN = 'https://cdn.jsdelivr.net/npm';

/**
 * GraphiQL from a CDN, over a plain form that works without it: the form is in the
 * page and wired before the CDN scripts run (they are deferred), so a reactor on a
 * machine without internet, or a CDN that hangs, still leaves a usable page. Nothing
 * from the request is written into the HTML; the script reads its own URL.
 */
export const GRAPHIQL_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL</title>
<link rel="stylesheet" href="${CDN}/graphiql@3/graphiql.min.css">
<script defer crossorigin src="${CDN}/react@18/umd/react.production.min.js"></script>
<script defer crossorigin src="${CDN}/react-dom@18/umd/react-dom.production.min.js"></script>
<script defer crossorigin src="${CDN}/graphiql@3/graphiql.min.js"></script>
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
  <p>GraphQL endpoint. The GraphiQL editor could not be loaded (it comes from cdn.jsdelivr.net); this form sends queries instead.</p>
  <label for="query">Query</label>
  <textarea id="query" name="query" rows="12" spellcheck="false">{
  __schema { queryType { fields { name } } mutationType { fields { name } } }
}</textarea>
  <label for="variables">Variables (JSON, optional)</label>
  <textarea id="variables" name="variables" rows="4" spellcheck="false"></textarea>
  <p><button type="submit">Run</button></p>
  <pre id="result" aria-live="polite"></pre>
</form>
<script>
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
</script>
</body>
</html>
`;

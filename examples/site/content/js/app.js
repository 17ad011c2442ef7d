// Lists the articles dataset served by the reactor at /api/v1/data/articles.
async function showArticles() {
  const list = document.getElementById('articles');
  try {
    const response = await fetch('/api/v1/data/articles');
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const articles = await response.json();
    list.replaceChildren(
      ...articles.map((article) => {
        const item = document.createElement('li');
        const title = document.createElement('strong');
        title.textContent = article.title;
        const tags = document.createElement('span');
        tags.className = 'tags';
        tags.textContent = article.tags ? ` (${article.tags.join(', ')})` : '';
        item.append(title, tags, document.createTextNode(` ${article.body}`));
        return item;
      }),
    );
  } catch (error) {
    list.textContent = `Could not load the articles: ${error.message}`;
  }
}

showArticles();

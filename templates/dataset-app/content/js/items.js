// Reads the items dataset from the reactor's data API and lists it.
const list = document.getElementById('items');
fetch('api/v1/data/items')
  .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`HTTP ${response.status}`))))
  .then((items) => {
    list.replaceChildren(
      ...items.map((item) => {
        const li = document.createElement('li');
        li.textContent = `${item.done ? '✓' : '○'} ${item.title}`;
        return li;
      }),
    );
  })
  .catch((error) => {
    list.textContent = `Could not load the items: ${error.message}`;
  });

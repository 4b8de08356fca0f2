// The page at `/` of docserver's HTTP port: the store's entities with their counts, a paged
// table of an entity's objects, one object with its relationships as links, a predicate box,
// live updates and edits of attribute values. It uses the JavaScript client (clients/js, served
// under /docstore/) over a WebSocket to /rpc on the same port. No build step, no dependencies.

import { connect, InvalidParamsError, ConflictError, ValidationError } from "/docstore/index.js";

const PAGE_SIZE = 50;
const EDITABLE = new Set(["string", "int16", "int32", "int64", "double", "float", "decimal", "bool", "date", "uuid", "uri"]);
const $ = (id) => document.getElementById(id);

/** What the page shows; `timings` is read by the browser test. */
const state = {
  client: null, model: null, entity: null, predicate: "", offset: 0, total: null,
  selected: null, counts: new Map(), seq: null,
  timings: { connected: null, firstPage: null, lastFetchMs: null },
  changesSeen: 0,
};
window.docPage = state;

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

function setStatus(text, ok) {
  const status = $("status");
  status.textContent = text;
  status.className = "status " + (ok ? "ok" : "down");
}

function setSeq(seq) {
  if (typeof seq === "number" && (state.seq === null || seq > state.seq)) state.seq = seq;
  $("seq").textContent = state.seq === null ? "" : `commit ${state.seq}`;
}

/** An ID's entity and reference, for links: `Song 12`. */
function shortID(id) {
  const parts = String(id).split("/");
  return parts.length >= 2 ? `${parts[parts.length - 2]} ${parts[parts.length - 1]}` : String(id);
}

function entityOf(id) {
  const parts = String(id).split("/");
  return parts.length >= 2 ? parts[parts.length - 2] : null;
}

function describeError(error) {
  return error && error.message ? error.message : String(error);
}

// -- entities and counts ------------------------------------------------------------------------

async function loadEntities() {
  state.model = await state.client.model();
  const list = $("entities");
  list.replaceChildren();
  for (const name of [...state.model.entities.keys()].sort()) {
    list.append(element("li", { dataset: { entity: name }, onclick: () => chooseEntity(name) },
      element("span", { class: "name" }, name), element("span", { class: "count" }, "…")));
  }
  await refreshCounts([...state.model.entities.keys()]);
}

async function refreshCounts(names) {
  await Promise.all(names.map(async (name) => {
    try {
      state.counts.set(name, await state.client.count(name, { includeSubentities: false }));
    } catch (error) {
      state.counts.set(name, null);
    }
    const item = document.querySelector(`#entities li[data-entity="${CSS.escape(name)}"] .count`);
    if (item) item.textContent = state.counts.get(name) === null ? "?" : state.counts.get(name).toLocaleString("en");
  }));
}

function chooseEntity(name, { predicate = "" } = {}) {
  state.entity = name;
  state.predicate = predicate;
  state.offset = 0;
  $("predicate").value = predicate;
  const text = state.model.entity(name).attributes.find((attribute) => attribute.type === "string");
  $("predicate").placeholder = text === undefined ? "a predicate (docs/PREDICATES.md), e.g. TRUEPREDICATE"
    : `a predicate, e.g. ${text.name} BEGINSWITH[c] 'a'`;
  $("entity-name").textContent = name;
  for (const item of document.querySelectorAll("#entities li")) item.classList.toggle("selected", item.dataset.entity === name);
  const hash = new URLSearchParams(location.hash.slice(1));
  hash.set("entity", name);
  history.replaceState(null, "", `#${hash}`);
  return showPage();
}

// -- the table ----------------------------------------------------------------------------------

function columns(entity) {
  return [...entity.properties.values()].filter((p) => p.kind === "attribute" || !p.toMany);
}

async function showPage({ fresh = new Set() } = {}) {
  if (state.entity === null) return;
  const entity = state.model.entity(state.entity);
  const params = { entity: state.entity, limit: PAGE_SIZE, offset: state.offset };
  if (state.predicate.trim() !== "") params.predicate = state.predicate;
  const started = performance.now();
  let answer, total;
  try {
    [answer, total] = await Promise.all([
      state.client.call("fetch", params),
      state.client.call("fetch", { entity: params.entity, ...(params.predicate === undefined ? {} : { predicate: params.predicate }), resultType: "count" }),
    ]);
  } catch (error) {
    showError(error);
    return;
  }
  $("error").hidden = true;
  state.total = total.count;
  state.timings.lastFetchMs = performance.now() - started;
  renderTable(entity, answer.objects, fresh);
  if (state.timings.firstPage === null) state.timings.firstPage = performance.now();
  $("timing").textContent = `${answer.objects.length} shown in ${state.timings.lastFetchMs.toFixed(0)} ms`;
}

function renderTable(entity, objects, fresh) {
  const shown = columns(entity);
  $("objects").tHead.replaceChildren(element("tr", {}, element("th", {}, "id"), ...shown.map((p) => element("th", {}, p.name))));
  const rows = objects.map((object) => {
    const row = element("tr", { dataset: { id: object.id }, onclick: () => showObject(object.id) },
      element("td", {}, shortID(object.id)));
    if (object.id === state.selected) row.classList.add("selected");
    if (fresh.has(object.id)) row.classList.add("fresh");
    for (const property of shown) row.append(cell(property, object.values[property.name]));
    return row;
  });
  $("objects").tBodies[0].replaceChildren(...rows);
  const first = objects.length === 0 ? 0 : state.offset + 1;
  $("range").textContent = `${first.toLocaleString("en")}–${(state.offset + objects.length).toLocaleString("en")} of ${state.total.toLocaleString("en")}`;
  $("prev").disabled = state.offset === 0;
  $("next").disabled = state.offset + PAGE_SIZE >= state.total;
}

function cell(property, value) {
  if (value === null || value === undefined) return element("td", { class: "null" }, "nil");
  if (property.kind === "relationship") {
    return element("td", {}, link(value));
  }
  const text = property.type === "binary" ? `${Math.floor(String(value).length * 3 / 4)} bytes` : String(value);
  return element("td", { title: text }, text);
}

function link(id) {
  return element("a", { class: "rel", href: "#", dataset: { id }, onclick: (event) => { event.preventDefault(); event.stopPropagation(); showObject(id); } },
    shortID(id));
}

/** Shows `error`; a predicate's error marks its position under the predicate. */
function showError(error) {
  const box = $("error");
  let text = describeError(error);
  if (error instanceof InvalidParamsError && typeof error.position === "number") {
    text += `\n\n${state.predicate}\n${" ".repeat(Math.max(0, error.position))}^ position ${error.position}`;
  }
  box.textContent = text;
  box.dataset.position = error instanceof InvalidParamsError && typeof error.position === "number" ? String(error.position) : "";
  box.hidden = false;
}

// -- one object ---------------------------------------------------------------------------------

async function showObject(id) {
  const sameObject = state.shownObject !== undefined && state.shownObject !== null && state.shownObject.id === id;
  state.selected = id;
  for (const row of document.querySelectorAll("#objects tbody tr")) row.classList.toggle("selected", row.dataset.id === id);
  let object;
  try {
    object = (await state.client.call("get", { ids: [id] })).objects[0];
  } catch (error) {
    $("object-status").textContent = describeError(error);
    return;
  }
  const panel = $("object");
  panel.hidden = false;
  if (object === null || object === undefined) {
    $("object-title").textContent = `${shortID(id)}: deleted`;
    $("object-form").replaceChildren();
    $("relationships").replaceChildren();
    return;
  }
  state.shownObject = object;
  const entity = state.model.entity(object.entity);
  $("object-title").textContent = `${shortID(object.id)} (version ${object.version})`;
  $("object-title").dataset.id = object.id;
  const form = $("object-form");
  form.replaceChildren();
  for (const property of entity.attributes) {
    const value = object.values[property.name];
    const input = element("input", { name: property.name, dataset: { key: property.name, type: property.type } });
    input.value = value === null || value === undefined ? "" : String(value);
    input.placeholder = value === null || value === undefined ? "nil" : "";
    input.dataset.original = input.value;
    if (!EDITABLE.has(property.type)) input.disabled = true;
    input.addEventListener("input", () => input.classList.toggle("changed", input.value !== input.dataset.original));
    form.append(element("label", { for: `value-${property.name}` }, property.name, " ", element("span", { class: "type" }, property.type)), input);
    input.id = `value-${property.name}`;
  }
  const relationships = $("relationships");
  relationships.replaceChildren();
  for (const property of entity.relationships) {
    const value = object.values[property.name];
    const ids = property.toMany ? value : value === null ? [] : [value];
    relationships.append(element("div", { class: "relationship", dataset: { key: property.name } },
      element("strong", {}, `${property.name} → ${property.destination}`, property.toMany ? ` (${ids.length})` : ""),
      ids.length === 0 ? element("div", { class: "null" }, "none")
        : element("ul", {}, ...ids.slice(0, 100).map((item) => element("li", {}, link(item)))),
      ids.length > 100 ? element("div", {}, `and ${ids.length - 100} more`) : ""));
  }
  if (!sameObject) {
    $("object-status").textContent = "";
    $("object-status").className = "";
  }
}

/** The wire form of an input's text for an attribute of `type` (docs/PROTOCOL.md). */
function wireValue(type, text, optional) {
  if (text === "") {
    if (type === "string" && !optional) return "";
    return null;
  }
  switch (type) {
    case "int16": case "int32": case "int64": {
      if (!/^-?\d+$/.test(text.trim())) throw new Error(`${JSON.stringify(text)} is not a whole number`);
      const number = Number(text);
      if (!Number.isSafeInteger(number)) throw new Error(`${text} is too large for this page (at most ±${Number.MAX_SAFE_INTEGER})`);
      return number;
    }
    case "double": case "float": {
      const number = Number(text);
      if (text.trim() === "" || Number.isNaN(number)) throw new Error(`${JSON.stringify(text)} is not a number`);
      return number;
    }
    case "bool":
      if (/^(true|yes|1)$/i.test(text.trim())) return true;
      if (/^(false|no|0)$/i.test(text.trim())) return false;
      throw new Error(`${JSON.stringify(text)} is not true or false`);
    default:
      return text;  // strings, decimals, dates (ISO 8601), UUIDs and URIs travel as strings
  }
}

async function saveObject() {
  const object = state.shownObject;
  if (!object) return;
  const entity = state.model.entity(object.entity);
  const values = {};
  const status = $("object-status");
  try {
    for (const input of document.querySelectorAll("#object-form input.changed")) {
      const property = entity.property(input.dataset.key);
      values[property.name] = wireValue(property.type, input.value, property.optional);
    }
  } catch (error) {
    status.textContent = describeError(error);
    status.className = "bad";
    return;
  }
  if (Object.keys(values).length === 0) {
    status.textContent = "nothing changed";
    status.className = "";
    return;
  }
  try {
    const result = await state.client.call("save", { update: [{ id: object.id, version: object.version, values }] });
    setSeq(result.seq);
    await showObject(object.id);
    status.textContent = `saved (commit ${result.seq})`;
    status.className = "saved";
  } catch (error) {
    let text = describeError(error);
    if (error instanceof ConflictError) text = "someone else changed it meanwhile: shown again, change it again";
    if (error instanceof ValidationError) text = error.failures.map((f) => `${f.key}: ${f.reason}`).join("; ") || text;
    status.textContent = text;
    status.className = "bad";
    if (error instanceof ConflictError) await showObject(object.id);
  }
}

// -- live updates -------------------------------------------------------------------------------

async function followChanges() {
  let since;
  for (;;) {
    try {
      const feed = await state.client.subscribe(since === undefined ? { includeValues: false } : { includeValues: false, since });
      $("live").textContent = "live updates: on";
      for await (const change of feed) {
        since = change.seq;
        state.changesSeen += 1;
        setSeq(change.seq);
        await applyChange(change);
      }
    } catch (error) {
      $("live").textContent = `live updates: ${describeError(error)}; retrying`;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

async function applyChange(change) {
  const touched = new Set();
  const ids = new Set();
  for (const item of [...change.inserted, ...change.updated]) { touched.add(item.entity); ids.add(item.id); }
  for (const id of [...change.deleted, ...change.removed]) { touched.add(entityOf(id)); ids.add(id); }
  const counted = [...touched].filter((name) => name !== null && state.model.entities.has(name));
  const work = [refreshCounts(counted)];
  if (state.entity !== null && counted.some((name) => state.model.isKindOf(name, state.entity))) {
    work.push(showPage({ fresh: ids }));
  }
  const editing = document.querySelector("#object-form input.changed") !== null;
  if (state.selected !== null && ids.has(state.selected) && !editing) work.push(showObject(state.selected));
  await Promise.all(work);
  $("live").textContent = `live updates: on; last commit ${change.seq} by ${change.author ?? "an unnamed client"}`;
}

// -- start --------------------------------------------------------------------------------------

async function start() {
  $("query").addEventListener("submit", (event) => {
    event.preventDefault();
    state.predicate = $("predicate").value;
    state.offset = 0;
    showPage();
  });
  $("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE_SIZE); showPage(); });
  $("next").addEventListener("click", () => { state.offset += PAGE_SIZE; showPage(); });
  $("save-object").addEventListener("click", saveObject);
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const params = new URLSearchParams(location.hash.slice(1));
  try {
    state.client = await connect({ url: `${scheme}//${location.host}/rpc`, clientName: "docserver page", token: params.get("token") ?? undefined });
  } catch (error) {
    setStatus(`cannot connect: ${describeError(error)}`, false);
    return;
  }
  state.timings.connected = performance.now();
  setStatus(`connected to ${location.host}`, true);
  setSeq(state.client.seq);
  const wanted = params.get("entity");
  const entitiesLoaded = loadEntities();
  if (wanted !== null) {
    state.model = await state.client.model();
    if (state.model.entities.has(wanted)) await chooseEntity(wanted);
  }
  await entitiesLoaded;
  if (state.entity === null && state.model.entities.size > 0) await chooseEntity([...state.model.entities.keys()].sort()[0]);
  followChanges();
}

start();

// The live-query demo page: signs in with a demo token, subscribes to a
// sorted, sectioned, limited list of tasks and watches the urgent ones, and
// keeps a table equal to the server's list by applying each `changes` to
// the last `snapshot` (docs/live-queries.md, "The protocol").
"use strict";

const list = { sections: [], objects: [], seq: 0 };   // the list as the server sent it
let socket = null;
let updating = false;   // an update of the list's predicate awaits its answer
const titles = new Map();   // ref → last title seen, to name objects that leave
// What the page has applied, for tests and the curious.
window.liveStats = { snapshots: 0, changes: 0, inserted: 0, deleted: 0, moved: 0, movedBetweenSections: 0 };

function subscribeFrame(predicate) {
  return {
    op: "subscribe", id: "board", entity: "Task", predicate,
    sort: [{ key: "status" }, { key: "priority", ascending: false }, { key: "title" }],
    section: "status", limit: 50,
  };
}

// Applies a snapshot: the list is replaced.
function applySnapshot(message) {
  list.seq = message.seq;
  list.sections = message.sections.map((s) => ({ name: s.name, count: s.count }));
  list.objects = [];
  let offset = 0;
  for (const section of list.sections) {
    list.objects.push(message.objects.slice(offset, offset + section.count));
    offset += section.count;
  }
}

// Applies one save's changes in the order the protocol gives: removals from
// the end (objects, then sections), insertions from the start (sections,
// then objects), then the updated objects' new values.
function applyChanges(message) {
  list.seq = message.seq;
  const stats = window.liveStats;
  const oldNames = list.sections.map((section) => section.name);
  stats.changes += 1;
  stats.inserted += message.inserted.length;
  stats.deleted += message.deleted.length;
  stats.moved += message.moved.length;
  const removals = message.deleted.map((row) => row.path)
    .concat(message.moved.map((move) => move.from))
    .sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  for (const [section, item] of removals) list.objects[section].splice(item, 1);
  for (const index of [...message.deletedSections].sort((a, b) => b - a)) {
    list.sections.splice(index, 1);
    list.objects.splice(index, 1);
  }
  for (const section of [...message.insertedSections].sort((a, b) => a.index - b.index)) {
    list.sections.splice(section.index, 0, { name: section.name, count: 0 });
    list.objects.splice(section.index, 0, []);
  }
  const insertions = message.inserted.map((row) => ({ path: row.path, object: row }))
    .concat(message.moved.map((move) => ({ path: move.to, object: move })))
    .sort((a, b) => a.path[0] - b.path[0] || a.path[1] - b.path[1]);
  for (const { path, object } of insertions) {
    list.objects[path[0]].splice(path[1], 0, { ref: object.ref, values: object.values });
  }
  for (const row of message.updated) {
    list.objects[row.path[0]][row.path[1]] = { ref: row.ref, values: row.values };
  }
  list.sections.forEach((section, index) => { section.count = list.objects[index].length; });
  for (const move of message.moved) {
    if (oldNames[move.from[0]] !== list.sections[move.to[0]].name) stats.movedBetweenSections += 1;
  }
  return new Set(message.inserted.concat(message.moved, message.updated).map((row) => row.ref));
}

function render(changed) {
  const body = document.getElementById("rows");
  const rows = [];
  list.sections.forEach((section, index) => {
    const header = document.createElement("tr");
    header.className = "section";
    header.innerHTML = `<th colspan="3"></th>`;
    header.firstChild.textContent = `${section.name ?? "all"} (${section.count})`;
    rows.push(header);
    for (const object of list.objects[index]) {
      const row = document.createElement("tr");
      row.dataset.ref = object.ref;
      row.dataset.section = section.name;
      if (changed && changed.has(object.ref)) row.className = "changed";
      for (const key of ["title", "owner", "priority"]) {
        const cell = document.createElement("td");
        cell.textContent = String(object.values[key] ?? "");
        row.appendChild(cell);
      }
      rows.push(row);
    }
  });
  body.replaceChildren(...rows);
}

function remember(objects) {
  for (const object of objects) if (object.values && object.values.title) titles.set(object.ref, object.values.title);
}

function feed(message) {
  const items = document.getElementById("feed");
  remember(message.inserted.concat(message.entered, message.updated, message.deleted));
  const name = (object) => (object.values ? object.values.title : titles.get(object.ref)) ?? object.ref;
  const describe = (kind, objects) => objects.map((object) => `${kind}: ${name(object)}`);
  const lines = describe("new", message.inserted).concat(
    describe("now urgent", message.entered), describe("changed", message.updated),
    describe("no longer urgent", message.exited), describe("deleted", message.deleted));
  for (const line of lines) {
    const item = document.createElement("li");
    item.textContent = `#${message.seq} ${line}`;
    items.prepend(item);
  }
  while (items.children.length > 12) items.lastChild.remove();
}

function setStatus(text) { document.getElementById("status").textContent = text; }

async function connect() {
  if (socket) socket.close(1000, "signing in again");
  const [sub, role] = document.getElementById("user").value.split(":");
  setStatus(`signing in as ${sub}…`);
  const response = await fetch(`/demo-token?sub=${encodeURIComponent(sub)}&role=${encodeURIComponent(role)}`);
  if (!response.ok) { setStatus(`no demo token: ${response.status} ${await response.text()}`); return; }
  const { token } = await response.json();
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
  socket = ws;
  ws.onopen = () => ws.send(JSON.stringify({ op: "auth", token }));
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    switch (message.op) {
      case "ready":
        setStatus(`live as ${sub}`);
        ws.send(JSON.stringify(subscribeFrame(document.getElementById("predicate").value)));
        ws.send(JSON.stringify({ op: "watch", id: "urgent", entity: "Task", predicate: "priority >= 8" }));
        break;
      case "snapshot":
        window.liveStats.snapshots += 1;
        remember(message.objects);
        applySnapshot(message);
        render(null);
        break;
      case "changes":
        // The first changes after an update answer it: the predicate was taken.
        if (updating && message.id === "board") {
          updating = false;
          document.getElementById("predicate-error").textContent = "";
        }
        remember(message.inserted.concat(message.moved, message.updated));
        render(applyChanges(message));
        break;
      case "event":
        feed(message);
        break;
      case "error":
        if (message.id === "board") {
          updating = false;
          document.getElementById("predicate-error").textContent = message.message;
        }
        else setStatus(`error: ${message.message}`);
        break;
    }
    window.liveSeq = list.seq;
  };
  ws.onclose = (event) => {
    if (socket === ws) setStatus(`closed (${event.code}${event.reason ? ": " + event.reason : ""})`);
  };
}

document.getElementById("signin").addEventListener("submit", (event) => { event.preventDefault(); connect(); });
document.getElementById("query").addEventListener("submit", (event) => {
  event.preventDefault();
  const predicate = document.getElementById("predicate").value;
  if (socket && socket.readyState === WebSocket.OPEN) {
    updating = true;
    socket.send(JSON.stringify({ op: "update", id: "board", predicate }));
  }
});

// For tests and the curious: the list as the page holds it.
window.liveList = () => list.sections.map((section, index) => ({
  name: section.name, refs: list.objects[index].map((object) => object.ref),
}));
connect();

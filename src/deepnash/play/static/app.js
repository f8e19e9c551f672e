// DeepNash play page: lobby (variant, opponent), deployment, click-to-move play, and replays of
// Gravon records. The server is the authority; this page only shows what /api and the game's
// WebSocket (/ws) send, and sends the person's choices.
"use strict";

const LABELS = ["F", "S", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B"];
const NAMES = ["Flag", "Spy", "Scout", "Miner", "Sergeant", "Lieutenant", "Captain", "Major",
               "Colonel", "General", "Marshal", "Bomb"];
const SIDES = ["red", "blue"];
const FILES = "abcdefghij";
const $ = (id) => document.getElementById(id);
const sqName = (sq) => FILES[sq % 10] + (Math.floor(sq / 10) + 1);

const ui = { options: null, phase: "lobby", player: 0, variant: "classic", opponent: null,
             replay: null, frame: 0, placement: null, chosen: null, swapFrom: null, token: null, state: null, selected: null,
             ws: null, pending: false, retries: 0 };

async function answer(res) {  // the JSON of a response, or an Error carrying the server's message
  const data = await res.json().catch(() => ({ detail: `${res.status} ${res.statusText}` }));
  if (!res.ok) {
    const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
    throw new Error(detail);
  }
  return data;
}

async function api(method, path, body) {
  return answer(await fetch(path, { method, headers: { "Content-Type": "application/json" },
                                    body: body === undefined ? undefined : JSON.stringify(body) }));
}

function say(text) { $("message").textContent = text || ""; }

function order() {  // rows top to bottom, columns left to right, own back row at the bottom
  const up = [...Array(10).keys()];
  const down = [...up].reverse();
  return ui.player === 0 ? { rows: down, cols: up } : { rows: up, cols: down };
}

function drawBoard(cellOf) {
  const board = $("board");
  board.replaceChildren();
  const { rows, cols } = order();
  for (const r of rows) {
    const rank = document.createElement("div");
    rank.className = "rank";
    rank.textContent = r + 1;
    board.appendChild(rank);
    for (const c of cols) {
      const sq = r * 10 + c;
      const div = document.createElement("div");
      div.id = "sq-" + sqName(sq);
      div.dataset.sq = sq;
      const { label, classes, title } = cellOf(sq);
      div.className = ["sq", ...classes].join(" ");
      div.textContent = label;
      if (title) div.title = title;
      div.addEventListener("click", () => onSquare(sq));
      div.addEventListener("contextmenu", (e) => { e.preventDefault(); onSquareRight(sq); });
      board.appendChild(div);
    }
  }
  const files = $("files");
  files.replaceChildren(document.createElement("div"));
  for (const c of cols) {
    const f = document.createElement("div");
    f.textContent = FILES[c];
    files.appendChild(f);
  }
}

// ---- lobby -------------------------------------------------------------------------------------
async function loadOptions() {
  ui.options = await api("GET", "/api/options");
  for (const name of Object.keys(ui.options.variants)) {
    const o = document.createElement("option");
    o.value = o.textContent = name;
    $("variant").appendChild(o);
  }
  fillOpponents();
  $("setup-pool").disabled = !ui.options.pool;
  showPhase("lobby");
  drawBoard(emptyCell);
}

function fillOpponents() {  // the server's allow-list for the variant chosen, its default first
  const select = $("opponent");
  select.replaceChildren(...ui.options.choices[$("variant").value].map((spec) => {
    const o = document.createElement("option");
    o.value = o.textContent = spec;
    return o;
  }));
  describeOpponent();
}

function describeOpponent() { $("opponent-about").textContent = ui.options.about[$("opponent").value] || ""; }

const PLAY_LEGEND = $("legend").textContent;
const REPLAY_LEGEND = "every piece shown · ★ known to its opponent (revealed in a battle) · yellow frame: the move just played";

function showPhase(phase) {
  ui.phase = phase;
  $("legend").textContent = phase === "replay" ? REPLAY_LEGEND : PLAY_LEGEND;
  for (const id of ["lobby", "deploy", "game", "replay"]) $(id).classList.toggle("hidden", id !== phase);
}

function emptyCell(sq) {
  const v = ui.options.variants[ui.variant];
  return v.lakes.includes(sq) ? { label: "", classes: ["lake"] } : { label: "", classes: [] };
}

// ---- deployment --------------------------------------------------------------------------------
function startDeploy() {
  ui.variant = $("variant").value;
  ui.opponent = $("opponent").value;
  $("opponent-name").textContent = "opponent: " + ui.opponent;
  ui.player = $("color").value === "red" ? 0 : 1;
  ui.placement = Array(100).fill(-1);
  ui.chosen = null;
  ui.swapFrom = null;
  say("");
  showPhase("deploy");
  drawDeploy();
}

function remaining() {
  const left = [...ui.options.variants[ui.variant].counts];
  for (const t of ui.placement) if (t >= 0) left[t] -= 1;
  return left;
}

function drawDeploy() {
  const zone = ui.options.variants[ui.variant].zones[ui.player];
  drawBoard((sq) => {
    const t = ui.placement[sq];
    if (t >= 0) {
      const classes = [SIDES[ui.player], "mine"];
      if (sq === ui.swapFrom) classes.push("selected");
      return { label: LABELS[t], classes, title: NAMES[t] };
    }
    if (zone.includes(sq)) return { label: "", classes: ["zone"] };
    return emptyCell(sq);
  });
  const left = remaining();
  const palette = $("palette");
  palette.replaceChildren();
  left.forEach((n, t) => {
    if (ui.options.variants[ui.variant].counts[t] === 0) return;
    const p = document.createElement("span");
    p.className = "piece " + SIDES[ui.player] + (n === 0 ? " empty" : "") + (ui.chosen === t ? " chosen" : "");
    p.id = "piece-" + LABELS[t];
    p.textContent = `${LABELS[t]}×${n}`;
    p.title = NAMES[t];
    p.addEventListener("click", () => { if (n > 0) { ui.chosen = t; ui.swapFrom = null; drawDeploy(); } });
    palette.appendChild(p);
  });
  $("start").disabled = left.some((n) => n !== 0);
}

function onDeploySquare(sq) {
  const zone = ui.options.variants[ui.variant].zones[ui.player];
  if (!zone.includes(sq)) return;
  if (ui.chosen !== null && ui.placement[sq] < 0) {
    ui.placement[sq] = ui.chosen;
    if (remaining()[ui.chosen] === 0) ui.chosen = null;
  } else if (ui.placement[sq] >= 0 && ui.swapFrom === null) {
    ui.swapFrom = sq;
  } else if (ui.swapFrom !== null) {
    [ui.placement[sq], ui.placement[ui.swapFrom]] = [ui.placement[ui.swapFrom], ui.placement[sq]];
    ui.swapFrom = null;
  }
  drawDeploy();
}

async function fetchSetup(source) {
  try {
    const color = SIDES[ui.player];
    const data = await api("POST", "/api/setup", { variant: ui.variant, color, source });
    ui.placement = data.placement;
    ui.chosen = ui.swapFrom = null;
    say("");
    drawDeploy();
  } catch (e) { say(e.message); }
}

function startGame() {
  connect({ type: "new", variant: ui.variant, opponent: ui.opponent, color: SIDES[ui.player], placement: ui.placement });
}

// ---- the game's WebSocket: send the person's choices, show every state the server pushes ------
const TOKEN_KEY = "deepnash-token";  // lets a reload take up the game again

function connect(first) {
  if (ui.ws) ui.ws.close();
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ui.ws = ws;
  ws.onopen = () => ws.send(JSON.stringify(first));
  ws.onmessage = (event) => { if (ws === ui.ws) onServer(JSON.parse(event.data)); };
  ws.onclose = () => {
    if (ws !== ui.ws || !ui.token || (ui.state && ui.state.over)) return;
    if (ui.retries >= 5) { say("The connection to the server is lost; reload the page."); return; }
    ui.retries += 1;
    say("The connection to the server is lost; reconnecting…");
    setTimeout(() => { if (ws === ui.ws) connect({ type: "join", token: ui.token }); }, 1000 * ui.retries);
  };
}

function onServer(msg) {
  ui.pending = false;
  if (msg.type === "error") {
    if (ui.phase === "lobby") sessionStorage.removeItem(TOKEN_KEY);  // a saved game that expired
    say(msg.error);
    if (ui.phase === "game") showGame(ui.state);
    return;
  }
  ui.retries = 0;
  ui.token = msg.token;
  sessionStorage.setItem(TOKEN_KEY, msg.token);
  if (ui.phase !== "game") {
    ui.player = msg.you;
    ui.variant = msg.variant;
    ui.selected = null;
    $("opponent-name").textContent = "opponent: " + msg.opponent;
    showPhase("game");
  }
  say("");
  showGame(msg);
}

function send(msg) {
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) {
    ui.ws.send(JSON.stringify(msg));
    ui.pending = true;
  } else say("Not connected to the server.");
}

function leaveGame() {
  const ws = ui.ws;
  ui.ws = ui.token = ui.state = null;
  sessionStorage.removeItem(TOKEN_KEY);
  if (ws) ws.close();
  toLobby();
}

function toLobby() {
  ui.replay = null;
  $("opponent-name").textContent = "";
  showPhase("lobby");
  drawBoard(emptyCell);
}

// ---- play --------------------------------------------------------------------------------------
function showGame(state) {
  ui.state = state;
  const last = state.last ? [state.last.from, state.last.to] : [];
  const targets = new Set(state.legal.filter(([f]) => f === ui.selected).map(([, t]) => t));
  drawBoard((sq) => {
    const cell = state.board[sq];
    const classes = [];
    let label = "";
    let title = "";
    if (cell.owner === 2) classes.push("lake");
    else if (cell.owner >= 0) {
      classes.push(SIDES[cell.owner]);
      label = cell.type === null ? "?" : LABELS[cell.type];
      title = cell.type === null ? "hidden piece" : NAMES[cell.type];
      if (cell.moved) classes.push("moved");
      if (cell.owner === state.you && cell.revealed) classes.push("known");
      if (state.legal.some(([f]) => f === sq)) classes.push("mine");
    }
    if (last.includes(sq)) classes.push("last");
    if (sq === ui.selected) classes.push("selected");
    if (targets.has(sq)) classes.push("target");
    return { label, classes, title };
  });
  const mine = state.turn === state.you;
  $("status").textContent = state.over ? state.result : mine ? `Your move (${state.you_name})` : "The opponent is thinking…";
  $("last").textContent = state.last ? "Last move: " + state.last.text : "";
  const lost = (counts) => counts.map((n, t) => (n ? `${n}× ${NAMES[t]}` : "")).filter(Boolean).join(", ") || "none";
  $("lost-you").textContent = "You: " + lost(state.lost[state.you]);
  $("lost-opp").textContent = "Opponent: " + lost(state.lost[1 - state.you]);
  const hist = $("history");
  hist.replaceChildren(...state.history.map((text) => {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }));
  hist.scrollTop = hist.scrollHeight;
  $("resign").classList.toggle("hidden", state.over);
  $("again").classList.toggle("hidden", !state.over);
  const dl = $("download");
  dl.classList.toggle("hidden", !state.over);
  if (state.over) dl.href = `/api/games/${ui.token}/record`;
}

function onGameSquare(sq) {
  const state = ui.state;
  if (state.over || ui.pending) return;
  if (ui.selected !== null && state.legal.some(([f, t]) => f === ui.selected && t === sq)) {
    const move = sqName(ui.selected) + "-" + sqName(sq);
    ui.selected = null;
    send({ type: "move", move });
    return;
  }
  ui.selected = state.legal.some(([f]) => f === sq) ? sq : null;
  showGame(state);
}

function onSquare(sq) {
  if (ui.phase === "deploy") onDeploySquare(sq);
  else if (ui.phase === "game") onGameSquare(sq);
}

function onSquareRight(sq) {
  if (ui.phase !== "deploy" || ui.placement[sq] < 0) return;
  ui.placement[sq] = -1;
  ui.swapFrom = null;
  drawDeploy();
}

// ---- replays: the server reads the uploaded record and sends every position; the page steps through them
const GRAVON_TYPES = [11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0];  // field letters B..M / N..Y: Bomb, Spy .. Marshal, Flag

function fieldCell(ch) {  // owner (-1 empty, 0 Red, 1 Blue, 2 lake) and type of a Gravon field letter
  if (ch === "A") return { owner: -1, type: null };
  if (ch === "_") return { owner: 2, type: null };
  const i = ch.charCodeAt(0) - "B".charCodeAt(0);
  return { owner: Math.floor(i / 12), type: GRAVON_TYPES[i % 12] };
}

function pieceCounts(field) {  // [Red's, Blue's] counts per type
  const counts = [Array(12).fill(0), Array(12).fill(0)];
  for (const ch of field) {
    const { owner, type } = fieldCell(ch);
    if (owner === 0 || owner === 1) counts[owner][type] += 1;
  }
  return counts;
}

async function loadReplay(file) {
  say("");
  try {
    const res = await fetch("/api/replay?name=" + encodeURIComponent(file.name),
                            { method: "POST", headers: { "Content-Type": "application/xml" }, body: file });
    const data = await answer(res);
    ui.replay = data;
    ui.player = 0;
    $("opponent-name").textContent = "replay: " + file.name;
    $("replay-title").textContent = `${data.players[0]} (Red) against ${data.players[1]} (Blue) · ${data.variant}`;
    $("replay-result").textContent = `${data.frames.length - 1} moves · result: ${data.result}`;
    $("replay-slider").max = data.frames.length - 1;
    $("replay-moves").replaceChildren(...data.frames.slice(1).map((f, i) => {
      const li = document.createElement("li");
      li.textContent = f.move.text;
      li.addEventListener("click", () => showFrame(i + 1));
      return li;
    }));
    showPhase("replay");
    showFrame(0);
  } catch (e) { say(e.message); }
  $("replay-file").value = "";
}

function showFrame(i) {
  const frames = ui.replay.frames;
  i = Math.max(0, Math.min(frames.length - 1, i));
  ui.frame = i;
  const frame = frames[i];
  const revealed = new Set(frame.revealed);
  const last = frame.move ? [frame.move.from, frame.move.to] : [];
  drawBoard((sq) => {
    const { owner, type } = fieldCell(frame.field[sq]);
    if (owner === 2) return { label: "", classes: ["lake"] };
    const classes = last.includes(sq) ? ["last"] : [];
    if (owner < 0) return { label: "", classes };
    classes.push(SIDES[owner]);
    if (revealed.has(sq)) classes.push("known");
    return { label: LABELS[type], classes, title: NAMES[type] };
  });
  const total = frames.length - 1;
  $("replay-pos").textContent = i === 0 ? `Start position (${total} moves)` : `Move ${i} / ${total}`;
  $("replay-move").textContent = frame.move ? frame.move.text : "";
  $("replay-slider").value = i;
  const [start, now] = [pieceCounts(frames[0].field), pieceCounts(frame.field)];
  const lost = (p) => start[p].map((n, t) => (n > now[p][t] ? `${n - now[p][t]}× ${NAMES[t]}` : ""))
    .filter(Boolean).join(", ") || "none";
  $("replay-lost").textContent = `Red lost: ${lost(0)}\nBlue lost: ${lost(1)}`;
  const items = $("replay-moves").children;
  for (const li of items) li.classList.remove("current");
  if (i > 0) {
    items[i - 1].classList.add("current");
    items[i - 1].scrollIntoView({ block: "nearest" });
  }
}

function onReplayKey(e) {
  if (ui.phase !== "replay" || e.target.tagName === "INPUT") return;
  const to = { ArrowLeft: ui.frame - 1, ArrowRight: ui.frame + 1, Home: 0, End: Infinity }[e.key];
  if (to !== undefined) { e.preventDefault(); showFrame(to); }
}

$("variant").addEventListener("change", fillOpponents);
$("opponent").addEventListener("change", describeOpponent);
$("replay-file").addEventListener("change", (e) => { if (e.target.files.length) loadReplay(e.target.files[0]); });
$("replay-first").addEventListener("click", () => showFrame(0));
$("replay-prev").addEventListener("click", () => showFrame(ui.frame - 1));
$("replay-next").addEventListener("click", () => showFrame(ui.frame + 1));
$("replay-last").addEventListener("click", () => showFrame(Infinity));
$("replay-slider").addEventListener("input", (e) => showFrame(Number(e.target.value)));
$("replay-close").addEventListener("click", toLobby);
document.addEventListener("keydown", onReplayKey);
$("new-game").addEventListener("click", startDeploy);
$("setup-random").addEventListener("click", () => fetchSetup("random"));
$("setup-pool").addEventListener("click", () => fetchSetup("pool"));
$("setup-clear").addEventListener("click", () => { ui.placement = Array(100).fill(-1); drawDeploy(); });
$("start").addEventListener("click", startGame);
$("resign").addEventListener("click", () => send({ type: "resign" }));
$("again").addEventListener("click", leaveGame);
loadOptions().then(() => {
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) { ui.token = saved; connect({ type: "join", token: saved }); }
}).catch((e) => say(e.message));

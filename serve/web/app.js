// papersoccer serve: the page's logic. Talks only to this server's JSON API (README, "serve").
// The board is the engine's SVG (render_svg); this script draws over it in the same
// coordinates: the kicks legal from the ball, the bot's chain kick by kick, analysis paths.
'use strict';

const DX = [0, 1, 1, 1, 0, -1, -1, -1];
const DY = [-1, -1, 0, 1, 1, 1, 0, -1];
const DIR_NAMES = ['N', 'NE', 'E', 'SE', 'S', 'SW', 'W', 'NW'];
const COLOUR = ['#e0457b', '#2f6fd0'];
const PATH_COLOURS = ['#0f766e', '#7c3aed', '#ca8a04', '#475569'];
const SVG_NS = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// --- the API -------------------------------------------------------------------------------

async function api(method, path, body) {
  const init = { method, headers: { 'Content-Type': 'application/json' } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(path, init);
  const json = await res.json().catch(() => ({ error: 'HTTP ' + res.status }));
  if (!res.ok) throw new Error(json.error || 'HTTP ' + res.status);
  return json;
}

// --- what is on the board ------------------------------------------------------------------

const view = {
  mode: 'play',
  position: null,  // the position JSON drawn
  source: null,    // {pitch, variant, kicks}: the drawn position, for the analysis
  overlay: null,   // <g> over the engine's picture
};

function setStatus(text, state) {
  $('status').textContent = text;
  $('status').dataset.state = state || 'idle';
}

function showResult(result) {
  $('result').hidden = !result;
  $('result').textContent = result ? `Player ${result.winner} wins: ${result.reason} (${result.text}).` : '';
  if (result) $('result').style.borderLeftColor = COLOUR[result.winner];
}

function pointXY(geo, x, y) {
  return [geo.left + x * geo.unit, geo.top + (y + 1) * geo.unit];
}

function svgEl(tag, attrs, parent) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

// Draws the engine's SVG of pos with an empty overlay; `source` says which game and position it is.
function showPosition(pos, source) {
  $('board').innerHTML = pos.svg;
  const svg = $('board').querySelector('svg');
  svg.id = 'board-svg';
  svg.dataset.kicks = pos.num_kicks;
  view.overlay = svgEl('g', { id: 'overlay' }, svg);
  svgEl('g', { id: 'analysis-paths' }, view.overlay);
  svgEl('g', { id: 'targets' }, view.overlay);
  const changed = !view.source || !source || view.source.kicks !== source.kicks ||
                  view.source.pitch !== source.pitch || view.source.variant !== source.variant;
  view.position = pos;
  view.source = source;
  if (changed) clearAnalysis();
  else if (analysis.result) drawAnalysisPaths(analysis.result);
}

// Marks the points the ball may be kicked to; a click on one kicks.
function drawTargets(pos, onKick) {
  const geo = pos.geometry, layer = $('targets');
  for (const k of pos.legal) {
    const [cx, cy] = pointXY(geo, k.to[0], k.to[1]);
    const cls = 'target' + (k.again ? ' again' : '') + (k.ends ? ' ends' : '');
    const c = svgEl('circle', { cx, cy, r: geo.unit * 0.3, class: cls, 'data-dir': k.dir }, layer);
    const what = k.ends ? 'ends the game' : k.again ? 'bounces: you kick again' : 'ends your turn';
    svgEl('title', {}, c).textContent = `kick ${k.dir} (${DIR_NAMES[k.dir]}): ${what}`;
    c.addEventListener('click', () => onKick(k.dir));
  }
}

// A path of kicks from point [x, y]; returns the end point.
function drawPath(layer, geo, from, digits, style) {
  let [x, y] = from;
  const pts = [pointXY(geo, x, y)];
  for (const ch of digits) {
    x += DX[+ch];
    y += DY[+ch];
    pts.push(pointXY(geo, x, y));
  }
  svgEl('polyline', {
    points: pts.map((p) => p.join(',')).join(' '), class: 'path', stroke: style.colour,
    'stroke-width': style.width, 'stroke-opacity': style.opacity || 0.85,
    'stroke-dasharray': style.dash || 'none',
  }, layer);
  if (style.label) {
    const [lx, ly] = pts[pts.length - 1];
    svgEl('text', { x: lx + 6, y: ly - 6, class: 'path-label', fill: style.colour }, layer).textContent = style.label;
  }
  return [x, y];
}

// Animates a chain of kicks on the current board: each segment appears, the ball follows.
async function animateKicks(pos, digits, player) {
  const geo = pos.geometry, layer = view.overlay;
  let [x, y] = pos.ball;
  const [bx, by] = pointXY(geo, x, y);
  const ball = svgEl('circle', { cx: bx, cy: by, r: geo.unit * 0.2, fill: '#fff', stroke: COLOUR[player],
                                 'stroke-width': geo.unit * 0.08, id: 'anim-ball' }, layer);
  for (const ch of digits) {
    const [x1, y1] = pointXY(geo, x, y);
    x += DX[+ch];
    y += DY[+ch];
    const [x2, y2] = pointXY(geo, x, y);
    svgEl('line', { x1, y1, x2, y2, stroke: COLOUR[player], 'stroke-width': geo.unit * 0.11,
                    'stroke-linecap': 'round' }, layer);
    layer.appendChild(ball);
    ball.setAttribute('cx', x2);
    ball.setAttribute('cy', y2);
    await sleep(280);
  }
}

// --- play ----------------------------------------------------------------------------------

const play = { game: null, busy: false };

function gameSource(g) {
  return { pitch: g.position.pitch, variant: g.position.variant, kicks: g.record.kicks };
}

function personToMove(g) {
  const pos = g.position;
  return !pos.result && !g.thinking && (g.human < 0 || pos.side_to_move === g.human);
}

function renderPlay() {
  const g = play.game;
  if (!g) return;
  $('record').value = g.record.record;
  $('pgn').value = g.record.pgn;
  $('undo').disabled = g.thinking || g.record.kicks.length === 0;
  $('to-review').disabled = g.record.kicks.length === 0;
  if (view.mode !== 'play') return;
  const pos = g.position;
  showPosition(pos, gameSource(g));
  showResult(pos.result);
  if (pos.result) setStatus('Game over.', 'over');
  else if (g.thinking) setStatus(`The bot (${g.opponent}) is thinking…`, 'thinking');
  else if (personToMove(g) && pos.kicks_in_turn > 0) setStatus('Bounce! You kick again: click a marked point.', 'bounce');
  else if (personToMove(g)) setStatus(`Your turn (player ${pos.side_to_move}): click a marked point.`, 'your-turn');
  else setStatus('The bot is to kick.', 'waiting');
  if (personToMove(g)) drawTargets(pos, onKick);
}

function setGame(g) {
  play.game = g;
  history.replaceState(null, '', '#game=' + g.id);
  localStorage.setItem('ps-game', g.id);
  renderPlay();
}

async function guarded(fn) {
  if (play.busy) return;
  play.busy = true;
  try {
    await fn();
  } catch (e) {
    setStatus(e.message, 'error');
  } finally {
    play.busy = false;
  }
}

async function botTurn() {
  const before = play.game;
  play.game = Object.assign({}, before, { thinking: true });
  renderPlay();
  let g = await api('POST', `/api/games/${before.id}/bot`, {});
  while (g.thinking) {
    await sleep(400);
    g = await api('GET', `/api/games/${before.id}`);
  }
  const chain = g.record.kicks.slice(before.record.kicks.length);
  if (view.mode === 'play' && chain.length) await animateKicks(before.position, chain, before.position.side_to_move);
  setGame(g);
}

function onKick(dir) {
  guarded(async () => {
    $('targets').innerHTML = '';
    setStatus(`Kick ${dir} (${DIR_NAMES[dir]})…`, 'waiting');
    const g = await api('POST', `/api/games/${play.game.id}/kick`, { dir });
    setGame(g);
    if (g.bots_turn) await botTurn();
  });
}

function newGame(ev) {
  ev.preventDefault();
  guarded(async () => {
    const body = {
      pitch: $('pitch').value, variant: $('variant').value, opponent: $('opponent').value,
      human_side: +$('human-side').value, time_ms: +$('time-ms').value || 1000,
      visits: +$('visits').value || -1,
    };
    const g = await api('POST', '/api/games', body);
    setGame(g);
    if (g.bots_turn) await botTurn();
  });
}

function undo() {
  guarded(async () => {
    const g = await api('POST', `/api/games/${play.game.id}/undo`, {});
    setGame(g);
    if (g.bots_turn) await botTurn();
  });
}

async function resumeGame() {
  const id = (location.hash.match(/game=([0-9a-f]+)/) || [])[1] || localStorage.getItem('ps-game');
  if (!id) return;
  try {
    let g = await api('GET', `/api/games/${id}`);
    while (g.thinking) {
      await sleep(400);
      g = await api('GET', `/api/games/${id}`);
    }
    setGame(g);
    if (g.bots_turn) await guarded(botTurn);
  } catch (e) {
    localStorage.removeItem('ps-game');
    history.replaceState(null, '', '#');
    setStatus('The earlier game is gone (' + e.message + '). Start a new one.', 'idle');
  }
}

// --- review --------------------------------------------------------------------------------

const review = { games: [], index: 0, at: 0, shown: 0 };

function reviewGame() { return review.games[review.index]; }

function loadReview(games) {
  review.games = games;
  const sel = $('review-games');
  sel.innerHTML = '';
  games.forEach((g, i) => {
    const who = g.tags && g.tags.Player0 ? ` ${g.tags.Player0} vs ${g.tags.Player1}` : '';
    const res = g.result ? ` — player ${g.result.winner} (${g.result.reason})` : ' — unfinished';
    sel.appendChild(new Option(`${i + 1}.${who}${res}`, i));
  });
  selectTab('review');
  selectReviewGame(0);
}

function selectReviewGame(i) {
  review.index = i;
  review.at = 0;
  $('review-games').value = i;
  const g = reviewGame();
  $('review-info').textContent = `${g.source}: ${g.pitch} ${g.variant}, record ${g.record}`;
  showReviewStep();
}

async function showReviewStep() {
  const g = reviewGame();
  if (!g) return;
  const ticket = ++review.shown;
  const kicks = g.kicks.slice(0, review.at);
  const r = await api('POST', '/api/position', { pitch: g.pitch, variant: g.variant, kicks });
  if (ticket !== review.shown || view.mode !== 'review') return;
  showPosition(r.position, { pitch: g.pitch, variant: g.variant, kicks });
  const done = g.turn_ends.filter((e) => e <= review.at);
  const into = review.at - (done.length ? done[done.length - 1] : 0);
  $('review-where').textContent = `after ${done.length} of ${g.turn_ends.length} turns` +
      (into ? ` and ${into} kick${into === 1 ? '' : 's'} of turn ${done.length + 1}` : '') + `; kick ${review.at} of ${g.kicks.length}`;
  $('review-where').dataset.at = review.at;
  const atEnd = review.at === g.kicks.length;
  showResult(atEnd ? g.result : null);
  const pos = r.position;
  setStatus(atEnd && g.result ? 'End of the game.' : pos.result ? 'Game over.' :
            `Player ${pos.side_to_move} to kick` + (pos.kicks_in_turn > 0 ? ' again (bounce).' : '.'),
            pos.result ? 'over' : pos.kicks_in_turn > 0 ? 'bounce' : 'idle');
}

function step(kind) {
  const g = reviewGame();
  if (!g) return;
  const n = g.kicks.length, at = review.at;
  const ends = [0].concat(g.turn_ends);
  if (kind === 'start') review.at = 0;
  else if (kind === 'end') review.at = n;
  else if (kind === 'kick') review.at = Math.min(n, at + 1);
  else if (kind === 'kick-back') review.at = Math.max(0, at - 1);
  else if (kind === 'turn') review.at = ends.find((e) => e > at) ?? n;
  else if (kind === 'turn-back') review.at = ends.filter((e) => e < at).pop() ?? 0;
  showReviewStep();
}

async function openPaste() {
  try {
    const r = await api('POST', '/api/review', {
      text: $('paste').value, pitch: $('review-pitch').value, variant: $('review-variant').value });
    loadReview(r.games);
    if (r.truncated) setStatus(r.note, 'error');
  } catch (e) {
    setStatus(e.message, 'error');
  }
}

async function loadRuns() {
  try {
    const r = await api('POST', '/api/runs', {});
    const sel = $('runs');
    sel.innerHTML = '<option value="">(runs in ' + r.runs_dir + ')</option>';
    for (const run of r.runs) sel.appendChild(new Option(`${run.run} (${run.files} files)`, run.run));
  } catch (e) {
    setStatus(e.message, 'error');
  }
}

async function loadRunFiles() {
  const sel = $('run-files');
  sel.innerHTML = '';
  if (!$('runs').value) return;
  const r = await api('POST', '/api/runs', { run: $('runs').value });
  for (const f of r.files) sel.appendChild(new Option(f, f));
}

async function openRun() {
  try {
    const r = await api('POST', '/api/review', { run: $('runs').value, file: $('run-files').value, limit: 100 });
    loadReview(r.games);
    $('review-info').textContent += ` (${r.games.length} of ${r.total} games of the file)`;
  } catch (e) {
    setStatus(e.message, 'error');
  }
}

function reviewPlayedGame() {
  const g = play.game;
  loadReview([Object.assign({}, g.record, {
    source: 'this game', pitch: g.position.pitch, variant: g.position.variant,
    result: g.position.result, tags: {},
  })]);
}

// --- analyse -------------------------------------------------------------------------------

const analysis = { result: null, source: null };

function clearAnalysis() {
  analysis.result = null;
  $('analysis').querySelector('tbody').innerHTML = '';
  $('analysis-summary').textContent = '';
  $('search-more').disabled = true;
}

function fmt(v, digits) { return v === null || v === undefined ? '–' : (v >= 0 ? '+' : '') + v.toFixed(digits); }

// The best turns as paths from the ball, thicker for more visits.
function drawAnalysisPaths(r, highlight) {
  const layer = $('analysis-paths');
  if (!layer) return;
  layer.innerHTML = '';
  const pos = view.position, geo = pos.geometry, mover = r.side_to_move;
  const total = Math.max(1, r.turns.reduce((s, t) => s + t.visits, 0));
  if (highlight !== undefined) {
    let at = pos.ball;
    r.turns[highlight].pv.forEach((turn, i) => {
      at = drawPath(layer, geo, at, turn, { colour: COLOUR[(mover + i) % 2], width: geo.unit * 0.12,
                                            dash: i ? '6 4' : 'none', label: i ? '' : '1', opacity: 0.9 });
    });
    return;
  }
  r.turns.slice(0, 4).forEach((t, i) => {
    drawPath(layer, geo, pos.ball, t.kicks, {
      colour: PATH_COLOURS[i], width: geo.unit * (0.06 + 0.16 * t.visits / total),
      label: `${i + 1}: ${t.visits}`,
    });
  });
}

function showAnalysis(r) {
  analysis.result = r;
  const s = r.search;
  $('analysis-summary').innerHTML = '';
  $('analysis-summary').textContent =
      `Network value ${fmt(r.value, 3)} for player ${r.side_to_move} (to move). ` +
      (s ? `Search: ${s.visits} visits (${s.new_visits} new, ${s.elapsed_ms.toFixed(0)} ms), value ${fmt(s.value, 3)}` +
           `${s.proven ? (s.proven > 0 ? ' (proven win)' : ' (proven loss)') : ''}, best turn ${s.best_turn}.`
         : 'No search (0 visits).');
  const body = $('analysis').querySelector('tbody');
  body.innerHTML = '';
  const rows = r.turns || r.network.turns.map((t) => ({ kicks: t.kicks, prior: t.prior, visits: 0, q: null, pv: [t.kicks] }));
  rows.forEach((t, i) => {
    const tr = document.createElement('tr');
    const swatch = i < 4 && r.turns ? `<span class="swatch" style="background:${PATH_COLOURS[i]}"></span>` : '';
    tr.innerHTML = `<td>${swatch}${t.kicks}</td><td class="num">${t.visits}</td><td class="num">${t.prior.toFixed(3)}</td>` +
                   `<td class="num">${fmt(t.q, 3)}</td><td>${t.pv.join(' ')}</td>`;
    if (r.turns) {
      tr.addEventListener('mouseenter', () => drawAnalysisPaths(r, i));
      tr.addEventListener('mouseleave', () => drawAnalysisPaths(r));
    }
    body.appendChild(tr);
  });
  if (r.turns) drawAnalysisPaths(r);
  $('search-more').disabled = false;
}

async function analyse(more) {
  const src = view.source;
  if (!src) return;
  $('analysis-summary').textContent = 'Analysing…';
  try {
    const r = await api('POST', '/api/analyse', Object.assign({}, src, {
      visits: Math.max(0, +$('analyse-visits').value || 0), top: 10, fresh: !more }));
    if (view.source !== src) return;  // the board moved on meanwhile
    showAnalysis(r);
  } catch (e) {
    $('analysis-summary').textContent = e.message;
  }
}

// --- tabs and start-up ---------------------------------------------------------------------

function selectTab(name) {
  view.mode = name;
  for (const b of document.querySelectorAll('nav .tab')) b.classList.toggle('active', b.dataset.panel === name);
  $('panel-play').hidden = name !== 'play';
  $('panel-review').hidden = name !== 'review';
  if (name === 'play') {
    showResult(null);
    if (play.game) renderPlay();
    else setStatus('Choose the rules and press New game.', 'idle');
  } else {
    loadRuns();
    if (reviewGame()) showReviewStep();
    else setStatus('Paste a game or pick a run.', 'idle');
  }
}

async function start() {
  const info = await api('GET', '/api/info');
  const sel = $('opponent');
  for (const o of info.opponents) {
    const opt = new Option(o.available ? o.type : `${o.type} (needs --model)`, o.type);
    opt.title = o.description;
    opt.disabled = !o.available;
    sel.appendChild(opt);
  }
  const describe = () => { $('opponent-about').textContent = sel.selectedOptions[0].title; };
  sel.addEventListener('change', describe);
  sel.value = info.model ? 'mcts' : 'greedy';
  describe();
  $('model-line').textContent = info.model ? `model ${info.model.path} (${info.model.summary})` : 'no model (mcts and analysis off)';
  $('new-game-form').addEventListener('submit', newGame);
  $('undo').addEventListener('click', undo);
  $('to-review').addEventListener('click', reviewPlayedGame);
  for (const b of document.querySelectorAll('nav .tab')) b.addEventListener('click', () => selectTab(b.dataset.panel));
  for (const b of document.querySelectorAll('button.copy'))
    b.addEventListener('click', () => navigator.clipboard && navigator.clipboard.writeText($(b.dataset.from).value));
  $('open-paste').addEventListener('click', openPaste);
  $('runs').addEventListener('change', loadRunFiles);
  $('open-run').addEventListener('click', openRun);
  $('review-games').addEventListener('change', () => selectReviewGame(+$('review-games').value));
  for (const k of ['start', 'turn-back', 'kick-back', 'kick', 'turn', 'end'])
    $('step-' + k).addEventListener('click', () => step(k));
  document.addEventListener('keydown', (e) => {
    if (view.mode !== 'review' || e.target.tagName === 'TEXTAREA' || e.target.tagName === 'INPUT') return;
    const keys = { ArrowLeft: 'kick-back', ArrowRight: 'kick', ArrowUp: 'turn-back', ArrowDown: 'turn', Home: 'start', End: 'end' };
    if (keys[e.key]) { e.preventDefault(); step(keys[e.key]); }
  });
  $('analyse').addEventListener('click', () => analyse(false));
  $('search-more').addEventListener('click', () => analyse(true));
  await resumeGame();
}

start().catch((e) => setStatus('Cannot reach the server: ' + e.message, 'error'));

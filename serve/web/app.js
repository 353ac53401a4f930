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

const SIDE_NAMES = ['pink', 'blue'];

// Who a player is, for the person at the board: "you" / "the bot" in a game against the bot
// (human: the person's side), else "pink (player 0)" / "blue (player 1)".
function who(player, human) {
  if (human === 0 || human === 1) return player === human ? 'you' : 'the bot';
  return `${SIDE_NAMES[player]} (player ${player})`;
}

// The end of a game in words: "You won: you scored." / "You lost: your ball is blocked."
function resultText(result, human) {
  const winner = who(result.winner, human), loser = who(1 - result.winner, human);
  const vsBot = human === 0 || human === 1;
  const head = vsBot ? (result.winner === human ? 'You won' : 'You lost') : `${winner[0].toUpperCase()}${winner.slice(1)} wins`;
  let why;
  if (result.reason === 'goal') why = `${winner} scored`;
  else if (result.reason === 'own goal') why = `${loser} kicked the ball into ${loser === 'you' ? 'your' : 'their'} own goal`;
  else why = `${loser === 'you' ? 'your' : loser === 'the bot' ? "the bot's" : loser + "'s"} ball is blocked (no legal kick)`;
  return `${head}: ${why}.`;
}

// The end of a game in the status line above the board, edged in the winner's colour.
function showResult(result, human) {
  setStatus(resultText(result, human), 'over');
  $('status').style.borderLeftColor = COLOUR[result.winner];
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
  // As wide as the column allows and no taller than the window: the width follows the
  // pitch's shape, so the evaluation bar stays beside the pitch (8x12 is narrower than 8x10).
  const ratio = +svg.getAttribute('width') / +svg.getAttribute('height');
  svg.style.maxWidth = `calc((100vh - var(--board-reserve)) * ${ratio.toFixed(4)})`;
  view.overlay = svgEl('g', { id: 'overlay' }, svg);
  svgEl('g', { id: 'analysis-paths' }, view.overlay);
  svgEl('g', { id: 'targets' }, view.overlay);
  const changed = !view.source || !source || view.source.kicks !== source.kicks ||
                  view.source.pitch !== source.pitch || view.source.variant !== source.variant;
  view.position = pos;
  view.source = source;
  fitEngines(pos);
  if (changed) {
    clearAnalysis();
    showStoredEval();
  } else if (analysis.result) drawAnalysisPaths(analysis.result);
}

// The network's PUCT is offered only on the rules of its model.
function fitEngines(pos) {
  const info = play.info, opt = $('analyse-engine').querySelector('option[value="puct"]');
  if (!info || !info.model || !opt) return;
  const fits = (info.model.pitches.length === 0 || info.model.pitches.includes(pos.pitch)) &&
               (info.model.variants.length === 0 || info.model.variants.includes(pos.variant));
  opt.disabled = !fits;
  opt.textContent = fits ? "the network's PUCT" : `the network's PUCT (not for ${pos.pitch} ${pos.variant})`;
  if (!fits && $('analyse-engine').value === 'puct') {
    $('analyse-engine').value = 'alphabeta';
    $('analyse-engine').dispatchEvent(new Event('change'));
  }
}

// The whole-game analysis belongs to one game: another game on the board clears it.
function clearGameAnalysis() {
  ++analysis.ticket;  // one running stops
  analysis.game = null;
  $('game-analysis').innerHTML = '';
  annotateTurnList();
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
    const dy = style.labelDy || 0;  // lines ending on one point: their labels one above the other
    svgEl('text', {x: lx + 6, y: ly - 6 - dy, class: 'path-label', fill: style.colour}, layer).textContent =
        style.label;
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

const play = { game: null, busy: false, token: 0, info: null };

function gameSource(g) {
  return { pitch: g.position.pitch, variant: g.position.variant, kicks: g.record.kicks };
}

function personToMove(g) {
  const pos = g.position;
  return !pos.result && !g.thinking && (g.human < 0 || pos.side_to_move === g.human);
}

// The turns of a record ("0 35 2" -> 3); turns alternate between the players.
function turnCount(record) { return record.record.trim() ? record.record.trim().split(/\s+/).length : 0; }

// Marks a turn that ends at the ball (its kicks so far when the ball bounced): thick and
// dashed in the colour of the player who made it, under the marked points.
function markTurn(pos, digits, player) {
  if (!digits) return;
  let [x, y] = pos.ball;
  for (const ch of digits) { x -= DX[+ch]; y -= DY[+ch]; }
  const layer = svgEl('g', { id: 'last-turn', 'data-kicks': digits });
  view.overlay.insertBefore(layer, view.overlay.firstChild);
  drawPath(layer, pos.geometry, [x, y], digits, { colour: COLOUR[player], width: pos.geometry.unit * 0.14,
                                                  dash: '7 5', opacity: 0.55 });
}

// Marks the bot's last turn on the board (the person knows their own).
function markLastBotTurn(g) {
  const turn = g.last_bot_turn, pos = g.position;
  if (!turn || g.human < 0 || !g.record.kicks.endsWith(turn) || pos.kicks_in_turn > 0) return;
  const n = turnCount(g.record);
  if (n === 0 || (n - 1) % 2 === g.human) return;  // the last turn was the person's
  markTurn(pos, turn, 1 - g.human);
}

// In the review, the turn that led to the position shown (or the kicks of the turn being
// played, after a bounce). Turns alternate, pink first.
function markReviewTurn(g, pos) {
  const done = g.turn_ends.filter((e) => e <= review.at);
  const last = done.length ? done[done.length - 1] : 0;
  if (review.at === 0) return;
  if (review.at === last) {
    const from = done.length >= 2 ? done[done.length - 2] : 0;
    markTurn(pos, g.kicks.slice(from, review.at), (done.length - 1) % 2);
  } else {
    markTurn(pos, g.kicks.slice(last, review.at), done.length % 2);
  }
}

function renderPlay() {
  const g = play.game;
  if (!g) return;
  $('record').value = g.record.record;
  $('pgn').value = g.record.pgn;
  fillTurnList($('play-turns'), g.record.record, g.record.turn_ends, (at) => showTurnStart(boardGame(), at));
  const last = $('play-turns').lastElementChild;
  if (last) {
    last.classList.add('current');
    $('play-turns').scrollTop = $('play-turns').scrollHeight;
  }
  annotateTurnList();
  // Undo takes back the person's last turn: there must be one (not only the bot's opening turn).
  const turns = turnCount(g.record);
  $('undo').disabled = g.thinking || turns === 0 || (g.human === 1 && turns < 2 && g.position.kicks_in_turn === 0);
  $('to-review').disabled = g.record.kicks.length === 0;
  if (view.mode !== 'play') return;
  const pos = g.position;
  showPosition(pos, gameSource(g));
  markLastBotTurn(g);
  const mover = who(pos.side_to_move, g.human);
  if (pos.result) showResult(pos.result, g.human);
  else if (g.thinking) setStatus('The bot is thinking…', 'thinking');
  else if (personToMove(g) && pos.kicks_in_turn > 0)
    setStatus(g.human < 0 ? `Bounce! ${mover} kicks again.` : 'Bounce! You kick again: click a marked point.', 'bounce');
  else if (personToMove(g))
    setStatus(g.human < 0 ? `${mover[0].toUpperCase()}${mover.slice(1)} to kick: click a marked point.`
                          : `Your turn (you are ${SIDE_NAMES[g.human]}): click a marked point.`, 'your-turn');
  else setStatus('The bot is to kick.', 'waiting');
  if (personToMove(g)) drawTargets(pos, onKick);
}

function setGame(g) {
  if (!play.game || play.game.id !== g.id) clearGameAnalysis();
  play.game = g;
  history.replaceState(null, '', '#game=' + g.id);
  localStorage.setItem('ps-game', g.id);
  renderPlay();
}

// Runs fn unless another action of this game is running; a new game always runs (it replaces
// the game, and the old game's bot turn is then left alone: see play.token).
async function guarded(fn, always) {
  if (play.busy && !always) return;
  play.busy = true;
  const token = play.token;
  try {
    await fn();
  } catch (e) {
    if (token === play.token) setStatus(e.message, 'error');
  } finally {
    if (token === play.token) play.busy = false;
  }
}

async function botTurn() {
  const before = play.game, token = play.token;
  play.game = Object.assign({}, before, { thinking: true });
  renderPlay();
  let g = await api('POST', `/api/games/${before.id}/bot`, {});
  while (g.thinking) {
    await sleep(300);
    if (token !== play.token) return;  // a new game replaced this one
    g = await api('GET', `/api/games/${before.id}`);
  }
  if (token !== play.token) return;
  const chain = g.record.kicks.slice(before.record.kicks.length);
  if (view.mode === 'play' && chain.length) await animateKicks(before.position, chain, before.position.side_to_move);
  if (token !== play.token) return;
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
  ++play.token;  // a bot turn of the old game still running is left alone
  play.busy = false;
  guarded(async () => {
    const opponent = $('opponent').value;
    const body = { pitch: $('pitch').value, variant: $('variant').value, opponent, human_side: +$('human-side').value };
    if (opponent === 'bot' && $('strength').value !== 'custom') body.strength = $('strength').value;
    else if (opponent !== 'human') Object.assign(body, { time_ms: +$('time-ms').value || 1000, visits: +$('visits').value || -1 });
    const g = await api('POST', '/api/games', body);
    setGame(g);
    if (g.bots_turn) await botTurn();
  }, true);
}

// The form shows a game's settings (a resumed game's after a reload).
function showSettings(g) {
  $('pitch').value = g.position.pitch;
  $('variant').value = g.position.variant;
  updateOpponents();
  const opponent = g.human < 0 ? 'human' : g.opponent;
  if ([...$('opponent').options].some((o) => o.value === opponent)) $('opponent').value = opponent;
  if (g.strength) $('strength').value = g.strength;
  if (g.human >= 0) $('human-side').value = String(g.human === 0 ? 0 : 1);
  $('time-ms').value = g.budget.time_ms;
  $('visits').value = g.budget.visits;
  updateForm();
}

// Which opponents play the chosen rules (a model's network only its own), and which fields
// the chosen one reads.
function updateOpponents() {
  const info = play.info;
  if (!info) return;
  const pitch = $('pitch').value, variant = $('variant').value;
  for (const opt of $('opponent').options) {
    const o = info.opponents.find((x) => x.type === opt.value);
    const rules = o.rules;
    const fits = !rules || ((rules.pitches.length === 0 || rules.pitches.includes(pitch)) &&
                            (rules.variants.length === 0 || rules.variants.includes(variant)));
    opt.disabled = !o.available || !fits;
    opt.textContent = o.available ? (fits ? o.label : `${o.label} (not for ${pitch} ${variant})`) : `${o.label} (needs --model)`;
  }
  if ($('opponent').selectedOptions[0].disabled) $('opponent').value = 'bot';
  updateForm();
}

function updateForm() {
  const opponent = $('opponent').value;
  $('strength-label').hidden = opponent !== 'bot';
  $('budget-fields').hidden = opponent === 'human' || (opponent === 'bot' && $('strength').value !== 'custom');
  const o = play.info && play.info.opponents.find((x) => x.type === opponent);
  let about = o ? o.description : '';
  if (opponent === 'bot') {
    const rules = `${$('pitch').value}/${$('variant').value}`;
    about = (play.info.value_nets || {})[rules] ?
        'The shipped bot: it searches whole turns ahead (alpha-beta) and judges positions with its trained value net.' :
        'The shipped bot: it searches whole turns ahead (alpha-beta) for goals and blocked balls; on these ' +
            'rules it has no trained value net and judges other positions at random (measured stronger ' +
            'than hand-made rules).';
    const st = o.strengths.find((x) => x.name === $('strength').value);
    about += st ? ` Strength ${st.name}: ${st.description}.` :
                  ' Custom: the time per turn and the visits below ' +
            '(for the bot, visits count the positions it searches).';
  }
  $('opponent-about').textContent = about;
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
    showSettings(g);
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

function loadReview(games, keepGameAnalysis) {
  if (!keepGameAnalysis) clearGameAnalysis();
  review.games = games;
  const sel = $('review-games');
  sel.innerHTML = '';
  games.forEach((g, i) => {
    const players = g.tags && g.tags.Player0 ? ` ${g.tags.Player0} vs ${g.tags.Player1}` : '';
    const winner = g.result ? who(g.result.winner, g.human === undefined ? -1 : g.human) : '';
    const res = g.result ? ` — ${winner === 'you' ? 'you won' : winner + ' won'} (${g.result.reason})` :
                           ' — unfinished';
    sel.appendChild(new Option(`${i + 1}.${players}${res}`, i));
  });
  $('open-game').open = games.length === 0;  // the game's turns and steps come first
  selectTab('review');
  review.index = 0;
  selectReviewGame(0);
}

// The turns of a record as buttons in `list`, edged in their player's colour; a click calls
// onClick with the kicks played after that turn.
function fillTurnList(list, record, turnEnds, onClick) {
  list.innerHTML = '';
  const turns = record.trim() ? record.trim().split(/\s+/) : [];
  turns.forEach((t, k) => {
    const b = document.createElement('button');
    b.className = 'turn';
    b.dataset.at = turnEnds[k];
    b.style.borderBottomColor = COLOUR[k % 2];
    b.textContent = `${k + 1}. ${t}`;
    b.dataset.about = `turn ${k + 1}, ${SIDE_NAMES[k % 2]}: show the position after it`;
    b.title = b.dataset.about;
    b.addEventListener('click', () => onClick(turnEnds[k]));
    list.appendChild(b);
  });
}

function selectReviewGame(i) {
  if (review.index !== i) clearGameAnalysis();
  review.index = i;
  review.at = 0;
  $('review-games').value = i;
  const g = reviewGame();
  $('review-info').textContent = `${g.source}: ${g.pitch} ${g.variant}, ${g.turn_ends.length} turns`;
  fillTurnList($('turn-list'), g.record, g.turn_ends, (at) => { review.at = at; showReviewStep(); });
  annotateTurnList();
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
  for (const b of $('turn-list').children) b.classList.toggle('current', +b.dataset.at === review.at);
  const pos = r.position;
  markReviewTurn(g, pos);
  const mover = who(pos.side_to_move, g.human);
  const toKick = mover === 'you' ? 'You are to kick' : mover === 'the bot' ? 'The bot is to kick'
                                                                         : `${mover[0].toUpperCase()}${mover.slice(1)} to kick`;
  if (pos.result) showResult(pos.result, g.human);
  else setStatus(toKick + (pos.kicks_in_turn > 0 ? ' again (bounce).' : '.'), pos.kicks_in_turn > 0 ? 'bounce' : 'idle');
  showGameAnalysis();
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

function reviewPlayedGame(keepGameAnalysis) {
  const g = play.game;
  loadReview([Object.assign({}, g.record, {
    source: 'this game', pitch: g.position.pitch, variant: g.position.variant,
    result: g.position.result, tags: {}, human: g.human,
  })], keepGameAnalysis === true);
}

// --- analyse -------------------------------------------------------------------------------

const analysis = { result: null, source: null, ticket: 0 };

function clearAnalysis() {
  analysis.result = null;
  $('analysis').querySelector('thead').innerHTML = '';
  $('analysis').querySelector('tbody').innerHTML = '';
  $('analysis-summary').textContent = '';
  $('search-more').disabled = true;
  showEval(null);
}

// A value with its sign ("+0.34", "-0.21"); one that rounds to zero is "0.00" (not "-0.00").
function fmt(v, digits) {
  if (v === null || v === undefined) return '–';
  const text = Math.abs(v).toFixed(digits);
  return +text === 0 ? text : (v > 0 ? '+' : '-') + text;
}

// The person at the board, when the position shown is of the game being played (for "you").
function humanOfView() {
  const g = boardGame();
  return g ? g.human : -1;
}

// A line's score for the side to move: "+0.34", or "wins in 3 turns" when proven.
function scoreText(line) {
  if (line.proven > 0) return `wins in ${line.end_in_turns} turn${line.end_in_turns === 1 ? '' : 's'}`;
  if (line.proven < 0) return `loses in ${line.end_in_turns} turn${line.end_in_turns === 1 ? '' : 's'}`;
  return fmt(line.value, 2);
}

// The evaluation bar: pink's share from the side to move's value in [-1, 1].
function showEval(r) {
  const fill = $('eval-fill'), label = $('eval-text');
  if (!r || r.value === undefined) {
    fill.style.height = '50%';
    label.textContent = '';
    $('eval-bar').classList.add('empty');
    return;
  }
  const pink = r.side_to_move === 0 ? r.value : -r.value;
  $('eval-bar').classList.remove('empty');
  fill.style.height = `${Math.round((1 + pink) * 50)}%`;
  label.textContent = r.proven ? (pink > 0 ? 'pink' : 'blue') + ' wins' : 'pink ' + fmt(pink, 2);
  $('eval-bar').title = `The engine's evaluation: ${fmt(pink, 2)} for pink (${Math.round((1 + pink) * 50)}% pink)`;
}

// The best turns as paths from the ball (PUCT: thicker for more visits); hovering a row draws
// that turn's principal variation.
function drawAnalysisPaths(r, highlight) {
  const layer = $('analysis-paths');
  if (!layer) return;
  layer.innerHTML = '';
  const pos = view.position, geo = pos.geometry, mover = r.side_to_move;
  const rows = r.lines || r.turns || [];
  if (highlight !== undefined) {
    let at = pos.ball;
    rows[highlight].pv.forEach((turn, i) => {
      at = drawPath(layer, geo, at, turn, { colour: COLOUR[(mover + i) % 2], width: geo.unit * 0.12,
                                            dash: i ? '6 4' : 'none', label: i ? '' : '1', opacity: 0.9 });
    });
    return;
  }
  const total = Math.max(1, rows.reduce((s, t) => s + (t.visits || 0), 0));
  const ends = [];  // where each line's turn ends: labels of lines ending on one point are stacked
  rows.slice(0, 4).forEach((t, i) => {
    const width = r.lines ? geo.unit * (i === 0 ? 0.16 : 0.08) : geo.unit * (0.06 + 0.16 * t.visits / total);
    let [x, y] = pos.ball;
    for (const ch of t.kicks) { x += DX[+ch]; y += DY[+ch]; }
    const end = `${x},${y}`;
    drawPath(layer, geo, pos.ball, t.kicks, {
      colour: PATH_COLOURS[i],
      width,
      label: r.lines ? `${i + 1}` : `${i + 1}: ${t.visits}`,
      labelDy: ends.filter((e) => e === end).length * 14,
    });
    ends.push(end);
  });
}

// "you, pink" / "the bot, blue" in a game against the bot, else "pink (player 0)".
function forWhom(side) {
  const human = humanOfView();
  return who(side, human) + (human === 0 || human === 1 ? `, ${SIDE_NAMES[side]}` : '');
}

function showAnalysis(r) {
  analysis.result = r;
  const whom = forWhom(r.side_to_move);
  const head = $('analysis').querySelector('thead'), body = $('analysis').querySelector('tbody');
  body.innerHTML = '';
  let rows;
  if (r.engine === 'alphabeta') {
    const best = r.lines[0];
    $('analysis-summary').textContent =
        `Alpha-beta with ${r.evaluation}: depth ${r.depth}, ${r.nodes.toLocaleString('en')} nodes in ` +
        `${r.elapsed_ms.toFixed(0)} ms. For ${whom} (to move): ${scoreText(r)}; best turn ${best.kicks}.`;
    head.innerHTML = '<tr><th>turn</th><th class="num">score</th><th class="num">depth</th><th>principal variation</th></tr>';
    rows = r.lines.map((t) => [t.kicks, scoreText(t), t.depth, t.pv.join(' ')]);
    $('search-more').disabled = true;
  } else {
    const s = r.search;
    $('analysis-summary').textContent =
        `Network value ${fmt(r.value, 3)} for ${whom} (to move). ` +
        (s ? `PUCT: ${s.visits} visits (${s.new_visits} new, ${s.elapsed_ms.toFixed(0)} ms), value ${fmt(s.value, 3)}` +
             `${s.proven ? (s.proven > 0 ? ' (proven win)' : ' (proven loss)') : ''}, best turn ${s.best_turn}.`
           : 'No search (0 visits).');
    head.innerHTML = '<tr><th>turn</th><th class="num">visits</th><th class="num">prior</th><th class="num">Q</th><th>principal variation</th></tr>';
    const turns = r.turns || r.network.turns.map((t) => ({ kicks: t.kicks, prior: t.prior, visits: 0, q: null, pv: [t.kicks] }));
    rows = turns.map((t) => [t.kicks, t.visits, t.prior.toFixed(3), fmt(t.q, 3), t.pv.join(' ')]);
    $('search-more').disabled = false;
  }
  const hoverable = r.lines || r.turns;
  rows.forEach((cells, i) => {
    const tr = document.createElement('tr');
    cells.forEach((c, k) => {
      const td = document.createElement('td');
      if (k > 0 && k < cells.length - 1) td.className = 'num';
      if (k === 0 && hoverable && i < 4) {
        const sw = document.createElement('span');
        sw.className = 'swatch';
        sw.style.background = PATH_COLOURS[i];
        td.appendChild(sw);
      }
      td.appendChild(document.createTextNode(String(c)));
      tr.appendChild(td);
    });
    if (hoverable) {
      tr.addEventListener('mouseenter', () => drawAnalysisPaths(r, i));
      tr.addEventListener('mouseleave', () => drawAnalysisPaths(r));
    }
    body.appendChild(tr);
  });
  if (hoverable) drawAnalysisPaths(r);
  showEval(r.engine === 'alphabeta' ? r : (r.search ? { side_to_move: r.side_to_move, value: r.search.value } : r));
}

function analyseRequest(src, more) {
  if ($('analyse-engine').value === 'puct')
    return Object.assign({}, src, { engine: 'puct', visits: Math.max(0, +$('analyse-visits').value || 0), top: 10, fresh: !more });
  return Object.assign({}, src, { engine: 'alphabeta', time_ms: Math.max(1, +$('analyse-time').value || 1000), lines: 4 });
}

async function analyse(more) {
  const src = view.source, pos = view.position;
  if (!src || !pos) return;
  if (pos.result) {
    // Where an earlier position is: the review's buttons, or the turn list while playing.
    $('analysis-summary').textContent = 'The game is over here: nothing to analyse. ' +
        (view.mode === 'review' ? 'Step back a turn with the buttons under the board'
                                : 'Click a turn beside the board to see the position after it') +
        ', or use Analyse the whole game.';
    return;
  }
  if (pos.kicks_in_turn > 0) {
    $('analysis-summary').textContent = 'The ball bounced: the analysis starts where a turn starts. ' +
        'Finish the turn, or step to the start of a turn.';
    return;
  }
  $('analysis-summary').textContent = 'Analysing…';
  try {
    const r = await api('POST', '/api/analyse', analyseRequest(src, more));
    if (view.source !== src) {  // the board moved on meanwhile
      $('analysis-summary').textContent = 'The board moved on: press Analyse again for this position.';
      return;
    }
    showAnalysis(r);
  } catch (e) {
    $('analysis-summary').textContent = e.message;
  }
}

// The game on the board: the review's, or the one being played.
function boardGame() {
  if (view.mode === 'review' && reviewGame()) {
    const g = reviewGame();
    return { pitch: g.pitch, variant: g.variant, kicks: g.kicks, turn_ends: g.turn_ends, result: g.result,
             record: g.record, human: g.human === undefined ? -1 : g.human, review: true };
  }
  if (play.game) {
    const g = play.game;
    return { pitch: g.position.pitch, variant: g.position.variant, kicks: g.record.kicks, turn_ends: g.record.turn_ends,
             result: g.position.result, record: g.record.record, human: g.human, review: false };
  }
  return null;
}

// The rules and kicks that name a game, to tell whether the whole-game analysis is of it.
function gameKey(g) { return `${g.pitch} ${g.variant} ${g.kicks}`; }

// A turn's loss for the player who made it, from pink's values before and after it.
const MISTAKE = 0.15, BLUNDER = 0.3;

// Every turn start of the game analysed briefly (alpha-beta, 150 ms each): the evaluation
// through the game as a chart, each turn's values in the turn list (the turns that lost the
// most marked ? and ??, as chess sites do), and the value of each turn start in the evaluation
// bar while stepping through the game.
async function analyseGame() {
  const g = boardGame();
  const out = $('game-analysis');
  if (!g || g.turn_ends.length === 0) { out.textContent = 'No turn to analyse yet.'; return; }
  clearGameAnalysis();
  const ticket = analysis.ticket;
  const starts = [0].concat(g.turn_ends);
  const pink = [];  // pink's value at each turn start
  for (let i = 0; i < starts.length; ++i) {
    const kicks = g.kicks.slice(0, starts[i]);
    if (i === starts.length - 1 && g.result) { pink.push(g.result.winner === 0 ? 1 : -1); break; }
    if (i === starts.length - 1 && starts[i] === starts[i - 1]) break;
    out.textContent = `Analysing turn ${i + 1} of ${g.turn_ends.length}…`;
    try {
      const r = await api('POST', '/api/analyse', { pitch: g.pitch, variant: g.variant, kicks, engine: 'alphabeta', time_ms: 150, lines: 1 });
      if (ticket !== analysis.ticket) return;
      pink.push(r.side_to_move === 0 ? r.value : -r.value);
    } catch (e) {
      out.textContent = e.message;
      return;
    }
  }
  // The loss of each turn for the player who made it (turn k by player k % 2).
  const drops = [];
  for (let k = 0; k + 1 < pink.length; ++k) {
    const loss = k % 2 === 0 ? pink[k] - pink[k + 1] : pink[k + 1] - pink[k];
    drops.push({ k, loss });
  }
  const worst = drops.filter((d) => d.loss >= MISTAKE).sort((a, b) => b.loss - a.loss).slice(0, 5).sort((a, b) => a.k - b.k);
  analysis.game = { key: gameKey(g), g, starts, pink, drops, worst };
  showGameAnalysis();
  annotateTurnList();
  showStoredEval();
}

// The kicks of the analysed game on the board (-1: the board shows another game).
function kicksShown(a) {
  const src = view.source;
  if (!src || src.pitch !== a.g.pitch || src.variant !== a.g.variant || !a.g.kicks.startsWith(src.kicks)) return -1;
  return src.kicks.length;
}

// The chart of the whole-game analysis (a click shows the turn start nearest to it; a line
// marks the position on the board) and the turns that lost the most.
function showGameAnalysis() {
  const a = analysis.game, out = $('game-analysis');
  if (!a) return;
  const { g, pink, starts, worst } = a;
  out.innerHTML = '';
  const w = 320, h = 90, n = Math.max(1, pink.length - 1);
  const svg = svgEl('svg', { width: '100%', viewBox: `0 0 ${w} ${h}`, id: 'game-chart', role: 'img' }, out);
  svgEl('rect', { x: 0, y: 0, width: w, height: h / 2, fill: '#fbe3ec' }, svg);
  svgEl('rect', { x: 0, y: h / 2, width: w, height: h / 2, fill: '#dfe9f9' }, svg);
  const pt = (k) => [(k / n) * (w - 8) + 4, h / 2 - pink[k] * (h / 2 - 4)];
  const at = kicksShown(a);
  if (at >= 0) {  // the position on the board: at a turn start, or inside the turn after it
    const k = Math.max(0, starts.filter((e) => e <= at).length - 1);
    const x = pt(Math.min(k, pink.length - 1))[0];
    svgEl('line', { x1: x, y1: 0, x2: x, y2: h, stroke: '#ca8a04', 'stroke-width': 2, id: 'game-chart-at' }, svg);
  }
  svgEl('polyline', { points: pink.map((_, k) => pt(k).join(',')).join(' '), fill: 'none', stroke: '#2b2f36', 'stroke-width': 2 }, svg);
  for (const d of worst) {
    const [x, y] = pt(d.k + 1);
    svgEl('circle', { cx: x, cy: y, r: 4, fill: '#b91c1c' }, svg);
  }
  svgEl('title', {}, svg).textContent =
      'Evaluation through the game: up is good for pink, down for blue. Click to see the position there.';
  svg.style.cursor = 'pointer';
  svg.addEventListener('click', (e) => {
    const box = svg.getBoundingClientRect();
    const x = ((e.clientX - box.left) / box.width) * w;
    const k = Math.min(pink.length - 1, Math.max(0, Math.round(((x - 4) / (w - 8)) * n)));
    showTurnStart(g, starts[k]);
  });
  const note = document.createElement('div');
  note.textContent = worst.length ? 'The turns that lost the most (values for the player who made them; ' +
                                        'marked ? and ?? in the turn list):'
                                  : `No turn lost ${MISTAKE} or more of the evaluation.`;
  out.appendChild(note);
  const list = document.createElement('ol');
  list.id = 'mistakes';
  for (const d of worst) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    const mover = who(d.k % 2, g.human);
    b.textContent = `Turn ${d.k + 1} (${mover}): ${fmt(d.k % 2 === 0 ? pink[d.k] : -pink[d.k], 2)} → ` +
                    `${fmt(d.k % 2 === 0 ? pink[d.k + 1] : -pink[d.k + 1], 2)}`;
    b.title = 'show the position before this turn';
    b.addEventListener('click', () => showTurnStart(g, starts[d.k]));
    li.appendChild(b);
    list.appendChild(li);
  }
  out.appendChild(list);
}

// The turn lists (the review's, and the played game's beside the board) with the whole-game
// analysis of their game: each turn's values before and after it (in its title) and ? / ?? on
// the turns that lost MISTAKE / BLUNDER or more.
function annotateTurnList() {
  annotateTurns($('turn-list'), reviewGame());
  const p = play.game;
  annotateTurns($('play-turns'), p && { pitch: p.position.pitch, variant: p.position.variant, kicks: p.record.kicks,
                                        human: p.human });
}

function annotateTurns(list, g) {
  const a = analysis.game;
  const on = a && g && a.key === gameKey(g);
  [...list.children].forEach((b, k) => {
    b.classList.remove('mistake', 'blunder');
    b.title = b.dataset.about;
    const mark = b.querySelector('.mark');
    if (mark) mark.remove();
    const d = on && a.drops[k];
    if (!d) return;
    const mine = (v) => fmt(k % 2 === 0 ? v : -v, 2);
    b.title += `; the evaluation for ${who(k % 2, g.human === undefined ? -1 : g.human)}: ` +
               `${mine(a.pink[k])} before, ${mine(a.pink[k + 1])} after`;
    if (d.loss < MISTAKE) return;
    b.classList.add(d.loss >= BLUNDER ? 'blunder' : 'mistake');
    const span = document.createElement('span');
    span.className = 'mark';
    span.textContent = d.loss >= BLUNDER ? '??' : '?';
    b.appendChild(span);
  });
}

// The evaluation bar at a turn start of the analysed game, from the whole-game analysis (until
// this position is analysed on its own).
function showStoredEval() {
  const a = analysis.game, pos = view.position;
  if (!a || !pos || analysis.result) return;
  const at = kicksShown(a);
  const k = a.starts.indexOf(at);
  if (at < 0 || k < 0 || k >= a.pink.length) return;
  const pink = a.pink[k];
  showEval({ side_to_move: 0, value: pink, proven: pos.result ? 1 : 0 });
  if (pos.result) return;
  const mover = pos.side_to_move, v = mover === 0 ? pink : -pink;
  $('analysis-summary').textContent = `The whole-game analysis (150 ms a turn): ${fmt(v, 2)} for ` +
      `${forWhom(mover)} (to move) here. Analyse this position for its best turns.`;
}

// Shows the position at `at` kicks of the game: in the review (the played game is opened there).
function showTurnStart(g, at) {
  if (!g.review) reviewPlayedGame(true);
  review.at = at;
  showReviewStep();
}

// --- tabs and start-up ---------------------------------------------------------------------

// Before the first game: the chosen rules' start position (it can be analysed too).
async function showStartBoard() {
  const src = {pitch: $('pitch').value, variant: $('variant').value, kicks: ''};
  try {
    const r = await api('POST', '/api/position', src);
    if (play.game || view.mode !== 'play') return;
    showPosition(r.position, src);
    setStatus('Choose the rules and the opponent, then press New game.', 'idle');
  } catch (e) {
    setStatus(e.message, 'error');
  }
}

function selectTab(name) {
  view.mode = name;
  for (const b of document.querySelectorAll('nav .tab')) b.classList.toggle('active', b.dataset.panel === name);
  $('panel-play').hidden = name !== 'play';
  $('panel-review').hidden = name !== 'review';
  $('step-buttons').hidden = name !== 'review';
  document.body.classList.toggle('review', name === 'review');
  if (name === 'play') {
    if (play.game) renderPlay();
    else showStartBoard();
  } else {
    loadRuns();
    if (reviewGame()) showReviewStep();
    else setStatus('Paste a game or pick a run.', 'idle');
  }
}

const OPPONENT_LABELS = {
  bot: 'the bot (the strongest)',
  human: 'nobody: two people at this board',
  mcts: 'the network',
  alphabeta: 'alpha-beta with a hand-made evaluation',
  greedy: 'greedy',
  uct: 'UCT (random play-outs)',
  random: 'random turns',
};

async function start() {
  const info = await api('GET', '/api/info');
  play.info = info;
  const sel = $('opponent');
  for (const o of info.opponents) {
    o.label = OPPONENT_LABELS[o.type] || o.type;
    sel.appendChild(new Option(o.label, o.type));
  }
  const bot = info.opponents.find((o) => o.type === 'bot');
  for (const st of bot.strengths)
    $('strength').appendChild(new Option(`${st.name}: ${st.description}`, st.name));
  $('strength').appendChild(new Option('custom: the time and visits below', 'custom'));
  $('strength').value = bot.default_strength;
  sel.value = info.default_opponent;
  sel.addEventListener('change', updateForm);
  $('strength').addEventListener('change', updateForm);
  for (const id of ['pitch', 'variant'])
    $(id).addEventListener('change', () => {
      updateOpponents();
      if (!play.game) showStartBoard();
    });
  updateOpponents();
  const engines = { alphabeta: 'alpha-beta (the bot\'s search)', puct: 'the network\'s PUCT' };
  for (const e of info.engines) $('analyse-engine').appendChild(new Option(engines[e] || e, e));
  const engineFields = () => {
    const puct = $('analyse-engine').value === 'puct';
    $('analyse-time-label').hidden = puct;
    $('analyse-visits-label').hidden = !puct;
    $('search-more').hidden = !puct;
  };
  $('analyse-engine').addEventListener('change', () => { engineFields(); clearAnalysis(); });
  engineFields();
  const nets = Object.entries(info.value_nets || {}).map(([rules, file]) => `${rules.replace('/', ' ')}: ${file}`);
  const netRules = Object.keys(info.value_nets || {}).map((rules) => rules.replace('/', ' '));
  $('model-line').textContent =
      (netRules.length ? `the bot has a trained value net for ${netRules.join(', ')}` : 'the bot has no trained value net') +
      (info.model ? `; the network ${info.model.path}` : '');
  $('model-line').title = nets.join('\n');
  $('analyse-game').addEventListener('click', analyseGame);
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
  if (!play.game) showStartBoard();
}

start().catch((e) => setStatus('Cannot reach the server: ' + e.message, 'error'));

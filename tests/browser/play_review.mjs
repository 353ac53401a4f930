// Plays a whole game against the random bot in headless chromium by clicking the marked points,
// then reviews it (by turn and by kick, the last turn marked on the board), reloads the page
// (the game must survive), analyses a position with both engines and the whole game (its values
// in the turn list and the evaluation bar while stepping), and checks the result and the record
// against the API; then a whole game against the default opponent (the shipped bot) on 8x12
// single-bounce, whose result must be in sight, and the page at a phone's width, playing and
// analysing. Screenshots go to OUTDIR.
//   node play_review.mjs URL OUTDIR
import puppeteer from 'puppeteer-core';
import assert from 'node:assert/strict';

const [url, out] = process.argv.slice(2);
const errors = [];
const browser = await puppeteer.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage'],
});
const page = await browser.newPage();
await page.setViewport({ width: 1280, height: 900 });
page.on('pageerror', (e) => errors.push('page error: ' + e.message));
page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
const shot = (name) => page.screenshot({ path: `${out}/${name}.png` });
const text = (sel) => page.$eval(sel, (el) => el.textContent);
const state = () => page.$eval('#status', (el) => el.dataset.state);

// The board keeps the pitch's shape (no blank bands inside the picture that push the
// evaluation bar away from the pitch) and fits the window's height.
async function checkBoardFits(what) {
  const b = await page.$eval('#board-svg', (el) => {
    const r = el.getBoundingClientRect();
    return { w: r.width, h: r.height, ratio: +el.getAttribute('width') / +el.getAttribute('height'),
             bottom: r.bottom + window.scrollY, window: window.innerHeight };
  });
  assert.ok(Math.abs(b.w / b.h - b.ratio) < 0.01, `${what}: the board is ${b.w}x${b.h}, not the pitch's shape`);
  assert.ok(b.bottom <= b.window, `${what}: the board ends at ${b.bottom} px, below the window (${b.window} px)`);
}

// Each analysis line's label sits at the end of its line (stacked only where lines end on one
// point): the labels of lines with other ends were stacked as if all ended on one.
async function checkPathLabels() {
  const bad = await page.$$eval('#analysis-paths polyline', (lines) => {
    const out = [], ends = [];
    for (const line of lines) {
      const pts = line.getAttribute('points').split(' ');
      const [x, y] = pts[pts.length - 1].split(',').map(Number);
      const label = line.nextElementSibling;
      if (!label || label.tagName !== 'text') continue;
      const shared = ends.filter((e) => e === `${x},${y}`).length;
      ends.push(`${x},${y}`);
      const want = y - 6 - 14 * shared;
      if (Math.abs(+label.getAttribute('x') - (x + 6)) > 0.5 || Math.abs(+label.getAttribute('y') - want) > 0.5)
        out.push(`label ${label.textContent} at ${label.getAttribute('x')},${label.getAttribute('y')}, its line ends at ${x},${y}`);
    }
    return out;
  });
  assert.deepEqual(bad, [], 'analysis labels away from their lines');
}

// A fixed pseudo-random sequence, so the test plays varied but reproducible kicks.
let seed = 12345;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };

async function playWholeGame() {
  let clicks = 0, sawBounce = false;
  for (;;) {
    await page.waitForFunction(() => {
      const s = document.getElementById('status').dataset.state;
      return s === 'your-turn' || s === 'bounce' || s === 'over' || s === 'error';
    }, { timeout: 20000 });
    const s = await state();
    assert.notEqual(s, 'error', 'the page reported: ' + await text('#status'));
    if (s === 'over') return clicks;
    if (s === 'bounce' && !sawBounce) { sawBounce = true; await shot('play-bounce'); }
    const targets = await page.$$('#targets .target');
    assert.ok(targets.length > 0, 'no marked point to click');
    // Prefer kicks that do not end the game at once, so the game lasts a while.
    const safe = [];
    for (const t of targets) if (!(await t.evaluate((el) => el.classList.contains('ends')))) safe.push(t);
    const again = [];
    for (const t of safe) if (await t.evaluate((el) => el.classList.contains('again'))) again.push(t);
    const pool = again.length && rand(2) ? again : safe.length ? safe : targets;
    const before = await page.$eval('#board-svg', (el) => +el.dataset.kicks);
    await pool[rand(pool.length)].click();
    clicks++;
    await page.waitForFunction((n) => {
      const svg = document.getElementById('board-svg');
      return svg && +svg.dataset.kicks > n;
    }, { timeout: 20000 }, before);
    if (clicks === 6) await shot('play-middle');
    assert.ok(clicks < 500, 'the game did not end');
  }
}

try {
  await page.goto(url, { waitUntil: 'networkidle0' });
  await page.waitForSelector('#opponent option');
  await page.select('#opponent', 'random');
  await page.$eval('#time-ms', (el) => { el.value = '200'; });
  await page.click('#new-game');
  await page.waitForSelector('#targets .target');
  const legal = (await page.$$('#targets .target')).length;
  assert.equal(legal, 8, 'eight kicks are legal from the centre');
  await shot('play-start');

  const clicks = await playWholeGame();
  await shot('play-end');
  const result = await text('#status');
  const record = await page.$eval('#record', (el) => el.value);
  const pgn = await page.$eval('#pgn', (el) => el.value);
  const id = decodeURIComponent(new URL(page.url()).hash).replace('#game=', '');
  const game = await (await fetch(new URL(`/api/games/${id}`, url))).json();
  const res = game.position.result;
  assert.ok(res, 'the API says the game is over');
  assert.equal(record, game.record.record, 'the record shown is the game\'s');
  assert.ok(pgn.includes(`[Result "${res.winner === 0 ? '1-0' : '0-1'}"]`), 'the PGN has the result');
  assert.ok(result.startsWith(res.winner === 0 ? 'You won: ' : 'You lost: '), `result shown: ${result}`);
  // The record replays to the same result.
  const replay = await (await fetch(new URL('/api/review', url), {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: record }) })).json();
  assert.deepEqual(replay.games[0].result, res);

  // A reload keeps the game (its id is in the URL), and the form shows its settings.
  await page.reload({ waitUntil: 'networkidle0' });
  await page.waitForFunction(() => document.getElementById('status').dataset.state === 'over');
  assert.equal(await page.$eval('#record', (el) => el.value), record, 'the reloaded page shows the game');
  assert.equal(await page.$eval('#opponent', (el) => el.value), 'random', 'the reloaded form shows the opponent');
  assert.equal(await page.$eval('#time-ms', (el) => el.value), '200', 'the reloaded form shows the time');

  // Review: start, step by kick and by turn, end.
  await page.click('#to-review');
  await page.waitForFunction(() => document.getElementById('review-where').dataset.at === '0');
  const kicks = game.record.kicks.length, ends = game.record.turn_ends;
  const at = () => page.$eval('#review-where', (el) => +el.dataset.at);
  const stepTo = async (button, want) => {
    await page.click(button);
    await page.waitForFunction((w) => document.getElementById('review-where').dataset.at === String(w), {}, want);
  };
  await stepTo('#step-kick', 1);
  await stepTo('#step-turn', ends.find((e) => e > 1) ?? kicks);
  await stepTo('#step-end', kicks);
  assert.equal(await text('#status'), result, 'the review ends with the same result');
  // The end has nothing to analyse: the page says where an earlier position is (it sent a
  // person in the review to the review).
  await page.click('#analyse');
  assert.match(await text('#analysis-summary'), /nothing to analyse\. Step back a turn with the buttons under the board/);
  await shot('review-end');
  // The last turn is marked on the board, in the colour of its player.
  const lastTurn = game.record.kicks.slice(ends.length > 1 ? ends[ends.length - 2] : 0);
  assert.equal(await page.$eval('#last-turn', (el) => el.dataset.kicks), lastTurn, 'the last turn is marked');
  await stepTo('#step-turn-back', ends.filter((e) => e < kicks).pop() ?? 0);
  await stepTo('#step-kick-back', (await at()) - 1);
  await shot('review-middle');

  // Analyse the position after the first two turns (a turn start).
  await stepTo('#step-start', 0);
  await stepTo('#step-turn', ends[0]);
  await stepTo('#step-turn', ends[1]);
  // The default engine: alpha-beta with the value net, its best lines, the evaluation bar.
  assert.equal(await page.$eval('#analyse-engine', (el) => el.value), 'alphabeta');
  await page.$eval('#analyse-time', (el) => { el.value = '300'; });
  await page.click('#analyse');
  await page.waitForFunction(() => /depth \d+/.test(document.getElementById('analysis-summary').textContent),
                             { timeout: 30000 });
  assert.match(await text('#analysis-summary'), /^Alpha-beta with the value net .*8x10-standard\.vnet: depth \d+/);
  assert.ok((await page.$$('#analysis tbody tr')).length >= 2, 'the best lines are listed');
  assert.ok((await page.$$('#analysis-paths polyline')).length >= 2, 'the best lines are drawn');
  assert.equal(await page.$eval('#eval-bar', (el) => el.classList.contains('empty')), false, 'the evaluation bar is filled');
  await checkBoardFits('desktop review');
  await checkPathLabels();
  await shot('analyse-alphabeta');
  // The network's PUCT as the second view.
  await page.select('#analyse-engine', 'puct');
  await page.$eval('#analyse-visits', (el) => { el.value = '100'; });
  await page.click('#analyse');
  await page.waitForFunction(() => document.querySelectorAll('#analysis tbody tr').length > 0 &&
                             /Network value/.test(document.getElementById('analysis-summary').textContent), { timeout: 30000 });
  const paths = await page.$$eval('#analysis-paths polyline', (els) => els.length);
  assert.ok(paths > 0, 'the best turns are drawn as paths');
  const summary = await text('#analysis-summary');
  assert.match(summary, /Network value [+-]?\d\.\d{3} for (you|the bot), (pink|blue) \(to move\)\. PUCT: \d+ visits/);
  const visits = () => +((document.getElementById('analysis-summary').textContent.match(/PUCT: (\d+) visits/) || [])[1] || 0);
  const first = await page.evaluate(visits);
  assert.ok(first >= 100, summary);
  await page.click('#search-more');
  await page.waitForFunction((n) => {
    const m = document.getElementById('analysis-summary').textContent.match(/PUCT: (\d+) visits/);
    return m && +m[1] > n;
  }, { timeout: 30000 }, first);
  await shot('analyse');

  // The whole game: each turn start analysed, the chart and the turns that lost the most.
  await page.click('#analyse-game');
  await page.waitForSelector('#game-chart', { timeout: 120000 });
  const mistakes = await page.$$('#mistakes button');
  if (mistakes.length) {
    await mistakes[0].click();
    await page.waitForFunction(() => document.querySelector('#turn-list .turn.current') ||
                               document.getElementById('review-where').dataset.at === '0', { timeout: 20000 });
    assert.ok((await page.$$('#turn-list .turn .mark')).length > 0, 'the turns that lost the most are marked');
  }
  // Turn by turn through the analysed game: each turn's values in its title, the evaluation
  // bar and the chart's marker at each turn start.
  assert.match(await page.$eval('#turn-list .turn', (el) => el.title), /the evaluation for you: [+-]?\d\.\d\d before, [+-]?\d\.\d\d after/);
  await stepTo('#step-start', 0);
  for (let k = 0; k < Math.min(3, ends.length - 1); ++k) {
    await stepTo('#step-turn', ends[k]);
    await page.waitForFunction(() => /^The whole-game analysis \(150 ms a turn\): [+-]?\d\.\d\d for (you|the bot)/.test(
                                   document.getElementById('analysis-summary').textContent), { timeout: 20000 });
    assert.equal(await page.$eval('#eval-bar', (el) => el.classList.contains('empty')), false, `turn ${k + 1}: the bar is filled`);
    assert.ok(await page.$('#game-chart-at'), 'the chart marks the position shown');
  }
  await shot('analyse-game');

  // A whole game against the default opponent, the shipped bot (strong), on 8x12 single-bounce.
  await page.click('#tab-play');
  assert.equal(await page.$eval('#opponent', (el) => el.value), 'random');  // the resumed game's
  if (mistakes.length)
    assert.ok((await page.$$('#play-turns .turn .mark')).length > 0, 'the turn list beside the board is marked too');
  await page.select('#opponent', 'bot');
  assert.equal(await page.$eval('#strength', (el) => el.value), 'strong', 'the default strength');
  assert.equal(await page.$eval('#budget-fields', (el) => el.hidden), true, 'a strength needs no time field');
  await page.select('#pitch', '8x12');
  await page.select('#variant', 'single-bounce');
  // No value net ships for these rules: the bot judges quiet positions at random, as it plays.
  const about = await text('#opponent-about');
  assert.match(about, /no trained value net and judges other positions at random/, about);
  assert.equal(await page.$eval('#opponent option[value="mcts"]', (el) => el.disabled), true,
               'the 8x10 network is not offered on 8x12');
  await page.click('#new-game');
  await page.waitForSelector('#targets .target');
  const botClicks = await playWholeGame();
  const botResult = await text('#status');
  assert.match(botResult, /^You (won|lost): /, botResult);
  // The result is in sight without scrolling (below the tall 8x12 board it was not).
  const resultBottom = await page.$eval('#status', (el) => el.getBoundingClientRect().bottom);
  assert.ok(resultBottom <= 900, `the result ends at ${resultBottom} px, below the window`);
  await checkBoardFits('8x12');
  await shot('play-bot-8x12');
  const botId = decodeURIComponent(new URL(page.url()).hash).replace('#game=', '');
  const botGame = await (await fetch(new URL(`/api/games/${botId}`, url))).json();
  assert.equal(botGame.opponent, 'bot');
  assert.equal(botGame.position.pitch, '8x12');
  // The game's turns beside the board: a click shows the position after one, in the review.
  const playTurns = await page.$$('#play-turns .turn');
  assert.equal(playTurns.length, botGame.record.turn_ends.length, 'the turn list beside the board has every turn');
  await playTurns[0].click();
  await page.waitForFunction((w) => document.getElementById('review-where').dataset.at === String(w), {},
                             botGame.record.turn_ends[0]);
  await page.click('#tab-play');

  // A phone's width: the page fits without sideways scrolling; the board leads.
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 2 });
  await page.reload({ waitUntil: 'networkidle0' });
  await page.waitForFunction(() => document.getElementById('status').dataset.state === 'over');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page is ${overflow} px wider than the phone`);
  const boardWidth = await page.$eval('#board-svg', (el) => el.getBoundingClientRect().width);
  assert.ok(boardWidth >= 300, `the board is ${boardWidth} px wide on the phone`);
  await shot('phone-play');
  // The analysis of a game at a phone's width: its review, a turn start analysed.
  await page.click('#to-review');
  await page.waitForFunction(() => document.getElementById('review-where').dataset.at === '0');
  await stepTo('#step-turn', botGame.record.turn_ends[0]);
  await page.$eval('#analyse-time', (el) => { el.value = '300'; });
  await page.click('#analyse');
  await page.waitForFunction(() => /depth \d+/.test(document.getElementById('analysis-summary').textContent),
                             { timeout: 30000 });
  const phoneOverflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(phoneOverflow <= 1, `the analysis is ${phoneOverflow} px wider than the phone`);
  await shot('phone-analyse');
  await page.screenshot({ path: `${out}/phone-analyse-full.png`, fullPage: true });
  await page.setViewport({ width: 1280, height: 900 });

  // Values that round to zero read 0.00 (the whole-game list showed "-0.00 → -1.00").
  assert.deepEqual(await page.evaluate(() => [fmt(-0.001, 2), fmt(0.004, 2), fmt(-0.21, 2), fmt(0.5, 3)]),
                   ['0.00', '0.00', '-0.21', '+0.500']);
  assert.deepEqual(errors, [], 'no errors in the page');
  console.log(`ok: a game of ${kicks} kicks (${clicks} clicks, ${game.record.turn_ends.length} turns), ` +
              `${result} record ${record}; against the bot on 8x12 single-bounce: ${botClicks} clicks, ${botResult}`);
  await browser.close();
} catch (e) {
  await shot('failure').catch(() => {});
  console.error('FAILED:', e.message, errors);
  await browser.close();
  process.exit(1);
}

// Quiver console: plain ES2020, no dependencies. Every value from the server goes into the page through
// textContent / createElement / setAttribute, never through innerHTML.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const TOKEN_KEY = 'quiver-token';
  const MAX_CELLS = 2000;
  const OUTCOMES = [
    ['PRUNED_PARTITION', 'pruned by partition'],
    ['PRUNED_STATISTICS', 'pruned by statistics (min/max)'],
    ['PRUNED_DICTIONARY', 'pruned by dictionary'],
    ['PRUNED_BLOOM', 'pruned by bloom filter'],
    ['PRUNED_RUNTIME', 'pruned by a join\'s runtime filter'],
    ['PRUNED_TOP_N', 'pruned by the top-N\'s bound (ORDER BY … LIMIT)'],
    ['FROM_STATISTICS', 'answered from its footer statistics (no page read)'],
    ['READ_PAGES_PRUNED', 'read, pages pruned (hatched part)'],
    ['READ', 'read whole'],
  ];
  const OUTCOME_TEXT = Object.fromEntries(OUTCOMES);

  const csrf = (document.querySelector('meta[name="quiver-csrf"]') || {}).content || '';
  let info = null;
  let runningId = null;
  let lastRun = null;
  let mapState = null;

  // ---------- small DOM helpers ----------
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = String(v);
        else e.setAttribute(k, String(v));
      }
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return e;
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }
  function fmtInt(n) {
    return (n === null || n === undefined || n < 0) ? '–' : Number(n).toLocaleString('en-US');
  }
  function fmtMs(ms) {
    if (ms === null || ms === undefined || ms < 0) return '–';
    return ms < 10 ? ms.toFixed(2) + ' ms' : ms < 1000 ? ms.toFixed(1) + ' ms' : (ms / 1000).toFixed(2) + ' s';
  }
  function fmtBytes(b) {
    if (b === null || b === undefined || b < 0) return '–';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    let v = Number(b);
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i === 0 ? String(v) : v.toFixed(1)) + ' ' + units[i];
  }
  function newQueryId() {
    const a = new Uint8Array(12);
    crypto.getRandomValues(a);
    return 'c-' + Array.from(a, (x) => x.toString(16).padStart(2, '0')).join('');
  }

  // ---------- API ----------
  class ApiError extends Error {
    constructor(status, err) {
      super((err && err.message) || ('HTTP ' + status));
      this.status = status;
      this.err = err || {};
    }
  }

  async function api(method, path, body) {
    const headers = { 'X-Quiver-Csrf': csrf, 'Accept': 'application/json' };
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers['Authorization'] = 'Bearer ' + token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let resp;
    try {
      resp = await fetch(path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit', cache: 'no-store',
      });
    } catch (e) {
      throw new ApiError(0, { code: 'UNAVAILABLE', message: 'The server did not answer: ' + e.message });
    }
    const type = resp.headers.get('Content-Type') || '';
    if (!resp.ok) {
      let err = null;
      if (type.includes('json')) {
        try { err = (await resp.json()).error; } catch (e) { err = null; }
      }
      if (!err) err = { message: 'HTTP ' + resp.status + ' ' + resp.statusText };
      if (resp.status === 401 && path !== 'api/login') {
        sessionStorage.removeItem(TOKEN_KEY);
        showLogin();
      }
      throw new ApiError(resp.status, err);
    }
    if (type.includes('json')) return resp.json();
    return { text: await resp.text(), type };
  }

  // ---------- login ----------
  function showLogin(message) {
    $('login').hidden = false;
    for (const p of document.querySelectorAll('.page')) p.hidden = true;
    $('login-error').hidden = !message;
    $('login-error').textContent = message || '';
    $('login-user').focus();
  }

  async function login(ev) {
    ev.preventDefault();
    try {
      const r = await api('POST', 'api/login', { user: $('login-user').value, password: $('login-password').value });
      sessionStorage.setItem(TOKEN_KEY, r.token);
      $('login-password').value = '';
      $('login').hidden = true;
      await start();
    } catch (e) {
      $('login-password').value = '';
      showLogin(e.status === 401 ? 'Wrong user or password.' : e.message);
    }
  }

  // ---------- tabs ----------
  function showTab(button) {
    for (const t of document.querySelectorAll('.tab')) t.classList.toggle('active', t === button);
    for (const p of document.querySelectorAll('.page')) p.hidden = p.id !== button.dataset.page;
    if (button.id === 'tab-tables') loadTables();
    if (button.id === 'tab-bench') loadBench();
  }

  // ---------- editor ----------
  function updateGutter() {
    const lines = $('sql').value.split('\n').length;
    const g = $('gutter');
    const marked = g.dataset.errorLine ? Number(g.dataset.errorLine) : 0;
    clear(g);
    for (let i = 1; i <= lines; i++) {
      const s = el('span', { class: i === marked ? 'ln err' : 'ln', text: String(i) });
      g.appendChild(s);
      g.appendChild(document.createTextNode('\n'));
    }
    g.scrollTop = $('sql').scrollTop;
  }

  function selectPosition(line, column) {
    const ta = $('sql');
    const lines = ta.value.split('\n');
    if (line < 1 || line > lines.length) return;
    let offset = 0;
    for (let i = 0; i < line - 1; i++) offset += lines[i].length + 1;
    const col = Math.max(1, Math.min(column || 1, lines[line - 1].length + 1));
    const start = offset + col - 1;
    // select the token at the position (up to the next space or punctuation), at least one character
    let end = start;
    const text = lines[line - 1];
    while (end - offset < text.length && /[\w$.'"]/.test(text[end - offset])) end++;
    if (end === start) end = Math.min(start + 1, offset + text.length);
    ta.focus();
    ta.setSelectionRange(start, end);
    // scroll the line into view
    const lh = parseFloat(getComputedStyle(ta).lineHeight) || 18;
    ta.scrollTop = Math.max(0, (line - 3) * lh);
  }

  function showError(err) {
    const box = $('error');
    box.hidden = false;
    const line = err.line ?? null;
    const column = err.column ?? null;
    $('error-message').textContent = (err.code ? err.code + ': ' : '') + (err.message || 'error');
    const marker = $('error-marker');
    if (line !== null && line !== undefined) {
      marker.hidden = false;
      marker.textContent = line + ':' + (column ?? 1);
      marker.dataset.line = String(line);
      marker.dataset.column = String(column ?? 1);
      $('gutter').dataset.errorLine = String(line);
      updateGutter();
      selectPosition(Number(line), Number(column ?? 1));
    } else {
      marker.hidden = true;
      marker.textContent = '';
    }
  }

  function clearError() {
    $('error').hidden = true;
    $('error-message').textContent = '';
    $('error-marker').textContent = '';
    delete $('gutter').dataset.errorLine;
    updateGutter();
  }

  // ---------- running ----------
  function setRunning(id, text) {
    runningId = id;
    $('run').disabled = !!id;
    $('compare').disabled = !!id;
    $('cancel').disabled = !id;
    if (text) $('status').textContent = text;
    $('status').classList.toggle('busy', !!id);
  }

  async function run() {
    if (runningId) return;
    const sql = $('sql').value;
    if (!sql.trim()) return;
    clearError();
    clearRun();
    const id = newQueryId();
    setRunning(id, 'Running…');
    const t0 = performance.now();
    try {
      const r = await api('POST', 'api/query', {
        sql, queryId: id, maxRows: 200, simplify: $('simplify').checked, oracle: $('oracle').checked,
      });
      lastRun = r;
      renderRun(r, performance.now() - t0);
    } catch (e) {
      const cancelled = e.status === 499 || e.err.code === 'CANCELLED' || e.err.status === 'CANCELLED';
      $('status').textContent = cancelled ? 'Cancelled.' : 'Failed.';
      const err = e.err.message ? e.err : { message: e.message };
      showError(err);
      showFailure((cancelled ? 'The query was cancelled' : 'The query failed') + ': ' + err.message);
    } finally {
      setRunning(null);
    }
  }

  // Every panel of the query page says the same thing until the next answer: waiting, or why there is none.
  function setPanels(text, cls) {
    lastRun = null;
    mapState = null;
    clear($('results'));
    if (cls === 'failed') $('results').appendChild(el('caption', { class: cls, text }));
    clear($('plan')).appendChild(el('p', { class: cls, text }));
    clear($('steps'));
    $('steps-empty').hidden = false;
    $('steps-empty').className = cls;
    $('steps-empty').textContent = text;
    clear($('rowgroup-map')).appendChild(el('p', { class: cls, text }));
    $('map-controls').hidden = true;
    clearDetail();
  }

  function clearRun() {
    hideCompare();
    setPanels('Waiting for the query…', 'empty');
  }

  function showFailure(text) {
    setPanels(text, 'failed');
  }

  function hideCompare() {
    clear($('compare-view')).hidden = true;
  }

  async function cancel() {
    const id = runningId;
    if (!id) return;
    try {
      const r = await api('POST', 'api/cancel', { queryId: id });
      // the query's own answer (CANCELLED) may arrive first: then its status stays
      if (runningId !== id) return;
      if (!r.cancelled) $('status').textContent = 'The query had already finished.';
      else $('status').textContent = 'Cancelling…';
    } catch (e) {
      showError(e.err.message ? e.err : { message: e.message });
    }
  }

  function renderRun(r, roundTripMs) {
    const s = $('status');
    clear(s);
    s.appendChild(el('strong', { id: 'row-count', text: fmtInt(r.rowCount) }));
    s.appendChild(document.createTextNode(r.rowCount === 1 ? ' row' : ' rows'));
    if (r.truncated) s.appendChild(document.createTextNode(' (first ' + fmtInt(r.rows.length) + ' shown)'));
    s.appendChild(document.createTextNode(' · ' + fmtMs(r.elapsedMs)));
    const p = r.profile || {};
    if (p.planningMs >= 0) s.appendChild(el('span', { class: 'muted', text: ' (planning ' + fmtMs(p.planningMs)
        + ', execution ' + fmtMs(p.executionMs) + ', round trip ' + fmtMs(roundTripMs) + ')' }));
    renderResults(r);
    renderPlan(p);
    renderSteps(p);
    renderMap(p);
  }

  function renderResults(r) {
    const t = clear($('results'));
    const head = el('tr');
    (r.columnNames || []).forEach((name, i) => {
      head.appendChild(el('th', { title: (r.columnTypes || [])[i] || null },
        el('span', { text: name }), el('span', { class: 'type', text: (r.columnTypes || [])[i] || '' })));
    });
    t.appendChild(el('thead', null, head));
    const body = el('tbody');
    for (const row of r.rows || []) {
      const tr = el('tr');
      for (const v of row) {
        tr.appendChild(v === null || v === undefined ? el('td', { class: 'null', text: 'NULL' }) : el('td', { text: v }));
      }
      body.appendChild(tr);
    }
    t.appendChild(body);
  }

  // ---------- plan ----------
  function treeMax(node, key, acc) {
    if (!node) return acc;
    const v = key === 'selfMs' ? selfMs(node) : Number(node[key]);
    if (v > acc) acc = v;
    for (const c of node.children || []) acc = treeMax(c, key, acc);
    return acc;
  }

  /** An operator's own time: its time (which includes its children's, as they run inside it) minus its children's. */
  function selfMs(node) {
    if (!(node.elapsedMs >= 0)) return -1;
    let children = 0;
    for (const c of node.children || []) if (c.elapsedMs > 0) children += c.elapsedMs;
    return Math.max(0, node.elapsedMs - children);
  }

  function renderPlan(p) {
    const box = clear($('plan'));
    const scans = new Map((p.scans || []).map((s) => [s.nodeId, s]));
    for (const [title, node] of [['Physical plan', p.physical], ['Logical plan', p.logical]]) {
      if (!node) continue;
      const maxRows = treeMax(node, 'outputRows', 0);
      const maxMs = treeMax(node, 'selfMs', 0);
      const sec = el('div', { class: 'plan-tree', 'data-tree': title.startsWith('Physical') ? 'physical' : 'logical' },
        el('h3', { text: title }));
      const ul = el('ul', { class: 'plan-node root' });
      ul.appendChild(planItem(node, maxRows, maxMs, scans));
      sec.appendChild(ul);
      box.appendChild(sec);
    }
    if (!box.firstChild) box.appendChild(el('p', { class: 'empty', text: 'No plan.' }));
    else box.insertBefore(el('p', { class: 'muted small', text: 'Bars: rows out, and each operator\'s own time'
      + ' (self; its children\'s time apart) with its total.' }), box.firstChild);
  }

  function bar(cls, value, max, label) {
    const outer = el('div', { class: 'bar ' + cls, title: label });
    const inner = el('div', { class: 'fill' });
    const frac = max > 0 && value > 0 ? value / max : 0;
    inner.style.width = (frac * 100).toFixed(1) + '%';
    outer.appendChild(inner);
    outer.appendChild(el('span', { class: 'bar-label', text: label }));
    return outer;
  }

  function planItem(node, maxRows, maxMs, scans) {
    const self = selfMs(node);
    const li = el('li', { 'data-operator': node.operator, 'data-rows': node.outputRows, 'data-ms': node.elapsedMs,
      'data-self-ms': self, 'data-id': node.id });
    const line = el('div', { class: 'node-line' },
      el('span', { class: 'op', text: node.operator }),
      node.detail ? el('code', { class: 'detail', text: node.detail }) : null);
    li.appendChild(line);
    if (node.outputRows >= 0 || node.elapsedMs >= 0) {
      li.appendChild(el('div', { class: 'bars' },
        bar('bar-rows', node.outputRows, maxRows, fmtInt(node.outputRows) + ' rows'),
        bar('bar-ms', self, maxMs, 'self ' + fmtMs(self) + ' · total ' + fmtMs(node.elapsedMs))));
    }
    const scan = scans.get(node.id);
    if (scan) li.appendChild(scanDetail(scan));
    else if (node.attributes && Object.keys(node.attributes).length) {
      const dl = el('div', { class: 'attrs' });
      for (const [k, v] of Object.entries(node.attributes)) {
        if (k !== 'output_rows' && k !== 'elapsed_ms') dl.appendChild(el('span', { class: 'kv', text: k + '=' + v }));
      }
      li.appendChild(dl);
    }
    if (node.children && node.children.length) {
      const ul = el('ul', { class: 'plan-node' });
      for (const c of node.children) ul.appendChild(planItem(c, maxRows, maxMs, scans));
      li.appendChild(ul);
    }
    return li;
  }

  function scanDetail(scan) {
    const box = el('div', { class: 'scan-detail' });
    const row = (k, v, cls) => el('div', { class: 'scan-row' }, el('span', { class: 'k', text: k }),
      el('code', { class: cls || 'v', text: v === null || v === undefined || v === '' ? '(none)' : v }));
    box.appendChild(row('table', scan.table));
    box.appendChild(row('pushed predicate', scan.predicate, 'v pushed'));
    box.appendChild(row('residual', scan.residual, 'v residual'));
    box.appendChild(row('exact conjuncts', (scan.exact || []).join('  AND  ')));
    const m = scan.metrics || {};
    const total = m.row_groups_total;
    const levels = el('table', { class: 'levels' });
    levels.appendChild(el('tr', null, el('th', { text: 'level' }), el('th', { text: 'row groups pruned' })));
    for (const [key, label] of [['row_groups_pruned_partition', 'partition'], ['row_groups_pruned_statistics', 'statistics'],
      ['row_groups_pruned_dictionary', 'dictionary'], ['row_groups_pruned_bloom', 'bloom filter'],
      ['row_groups_pruned_runtime', 'runtime filter (join)'], ['row_groups_pruned_top_n', 'top-N bound']]) {
      if (m[key] === undefined) continue;
      levels.appendChild(el('tr', { 'data-level': label }, el('td', { text: label }),
        el('td', { text: fmtInt(m[key]) + (total !== undefined ? ' of ' + fmtInt(total) : '') })));
    }
    if (m.pages_pruned !== undefined) {
      levels.appendChild(el('tr', { 'data-level': 'pages' }, el('td', { text: 'pages (page index)' }),
        el('td', { text: fmtInt(m.pages_pruned) + ' pages' })));
    }
    box.appendChild(levels);
    const rest = el('div', { class: 'attrs' });
    for (const [k, v] of Object.entries(m)) rest.appendChild(el('span', { class: 'kv', text: k + '=' + v }));
    box.appendChild(rest);
    return box;
  }

  // ---------- simplifier steps ----------
  function renderSteps(p) {
    const ol = clear($('steps'));
    const steps = p.steps || [];
    for (const s of steps) {
      ol.appendChild(el('li', { class: 'step' },
        el('span', { class: 'rule', text: s.rule }),
        el('div', { class: 'rewrite' },
          el('code', { class: 'before', text: s.before }),
          el('span', { class: 'arrow', text: '→' }),
          el('code', { class: 'after', text: s.after }))));
    }
    const empty = $('steps-empty');
    empty.className = 'empty';
    empty.hidden = steps.length > 0;
    empty.textContent = p.simplified === false ? 'The simplifier was off for this run.'
      : 'No rewrite fired: the predicates were already in pushable form.';
  }

  // ---------- row-group map ----------
  function renderLegend() {
    const lg = clear($('map-legend'));
    for (const [name, text] of OUTCOMES) {
      lg.appendChild(el('span', { class: 'legend-item', 'data-outcome': name },
        el('span', { class: 'swatch o-' + name.toLowerCase(), 'aria-hidden': 'true' }),
        document.createTextNode(text)));
    }
    lg.appendChild(el('span', { class: 'legend-item' }, el('span', { class: 'swatch oracle-swatch' }),
      document.createTextNode('oracle: holds a match')));
  }

  // ---------- the selected cell's facts ----------
  function outcomeText(o) {
    return OUTCOME_TEXT[o] || String(o);
  }

  /** A single row group's facts: [label, value] pairs, and its predicate columns' statistics. */
  function rowGroupFacts(rg, scan) {
    const facts = [['table', scan.table], ['file', rg.file], ['row group', String(rg.index)], ['rows', fmtInt(rg.rows)],
      ['compressed', fmtBytes(rg.compressedBytes)], ['outcome', outcomeText(rg.outcome)]];
    if (rg.pagesTotal > 0) facts.push(['pages pruned', fmtInt(rg.pagesPruned) + ' of ' + fmtInt(rg.pagesTotal)]);
    const pruned = String(rg.outcome).startsWith('PRUNED');
    facts.push(['rows read', pruned ? '0 (not read)' : fmtInt(rg.rowsRead)]);
    if (scan.oracle && rg.rowsMatching >= 0) {
      facts.push(['oracle', fmtInt(rg.rowsMatching) + (rg.rowsMatching === 1 ? ' row matches' : ' rows match')
        + (rg.rowsMatching > 0 ? ' (holds a match)' : ' (no match: reading it was avoidable)')]);
    } else {
      facts.push(['oracle', 'off (tick "oracle" and run again to count the rows that really match)']);
    }
    return facts;
  }

  function groupFacts(group, scan) {
    const counts = {};
    let rows = 0;
    let matching = 0;
    for (const rg of group) {
      counts[rg.outcome] = (counts[rg.outcome] || 0) + 1;
      rows += rg.rows;
      if (rg.rowsMatching > 0) matching++;
    }
    const first = group[0];
    const last = group[group.length - 1];
    const facts = [['table', scan.table], ['row groups', fmtInt(group.length) + ': ' + first.file + ' #' + first.index
      + ' … ' + last.file + ' #' + last.index], ['rows', fmtInt(rows)]];
    for (const [o, text] of OUTCOMES) if (counts[o]) facts.push([text, fmtInt(counts[o])]);
    facts.push(['oracle', scan.oracle ? fmtInt(matching) + ' hold a match' : 'off']);
    return facts;
  }

  function summaryText(facts) {
    return facts.map(([k, v]) => k + ': ' + v).join('; ');
  }

  function clearDetail() {
    clear($('rg-detail')).appendChild(el('p', { class: 'empty',
      text: 'Select a cell (click it, or Tab to it) to see its row group\'s facts here.' }));
    for (const c of document.querySelectorAll('#rowgroup-map .rg.selected')) {
      c.classList.remove('selected');
      c.setAttribute('aria-pressed', 'false');
    }
  }

  function showDetail(cell) {
    if (!mapState || !cell || !cell.dataset.cell) return;
    const entry = mapState.cells[Number(cell.dataset.cell)];
    if (!entry) return;
    for (const c of document.querySelectorAll('#rowgroup-map .rg.selected')) {
      c.classList.remove('selected');
      c.setAttribute('aria-pressed', 'false');
    }
    cell.classList.add('selected');
    cell.setAttribute('aria-pressed', 'true');
    const box = clear($('rg-detail'));
    const single = entry.rg !== undefined;
    box.setAttribute('data-outcome', cell.dataset.outcome);
    box.appendChild(el('h3', null, el('span', { class: 'swatch o-' + String(cell.dataset.outcome).toLowerCase() }),
      single ? entry.rg.file + ' · row group ' + entry.rg.index : fmtInt(entry.group.length) + ' row groups'));
    const facts = single ? rowGroupFacts(entry.rg, entry.scan) : groupFacts(entry.group, entry.scan);
    const dl = el('dl', { class: 'facts' });
    for (const [k, v] of facts) {
      dl.appendChild(el('dt', { text: k }));
      dl.appendChild(el('dd', { 'data-fact': k, text: v }));
    }
    box.appendChild(dl);
    if (single && (entry.rg.stats || []).length) {
      const t = el('table', { class: 'grid small', id: 'rg-detail-stats' });
      t.appendChild(el('tr', null, ...['column', 'min', 'max', 'nulls', 'dictionary', 'bloom filter']
        .map((h) => el('th', { text: h }))));
      for (const c of entry.rg.stats) {
        t.appendChild(el('tr', { 'data-column': c.column }, el('td', { text: c.column }),
          el('td', { class: 'min', text: c.min ?? 'n/a' }), el('td', { class: 'max', text: c.max ?? 'n/a' }),
          el('td', { class: 'num', text: c.nullCount === null || c.nullCount === undefined ? 'n/a' : fmtInt(c.nullCount) }),
          el('td', { text: yes(c.hasDictionary) }), el('td', { text: yes(c.hasBloomFilter) })));
      }
      box.appendChild(el('p', { class: 'muted small', text: 'Statistics of the filtered columns in this row group:' }));
      box.appendChild(t);
    }
  }

  function cellAttrs(cls, outcome, index, label) {
    // one cell per grid is in the Tab order (the first); the arrow keys move between the others
    return { class: cls, 'data-outcome': outcome, 'data-cell': index, tabindex: -1, role: 'button',
      'aria-pressed': 'false', 'aria-label': label };
  }

  function singleCell(rg, scan) {
    const index = mapState.cells.push({ rg, scan }) - 1;
    const c = el('div', cellAttrs('rg o-' + String(rg.outcome).toLowerCase(), rg.outcome, index,
      summaryText(rowGroupFacts(rg, scan))));
    c.setAttribute('data-file', rg.file);
    c.setAttribute('data-index', rg.index);
    c.setAttribute('data-rows', rg.rows);
    if (rg.outcome === 'READ_PAGES_PRUNED' && rg.pagesTotal > 0) {
      const shade = el('div', { class: 'shade' });
      shade.style.height = (100 * rg.pagesPruned / rg.pagesTotal).toFixed(1) + '%';
      c.appendChild(shade);
    }
    if (scan.oracle) {
      const match = rg.rowsMatching > 0;
      c.setAttribute('data-oracle', match ? 'match' : 'none');
      c.classList.add(match ? 'oracle-match' : 'oracle-none');
    }
    return c;
  }

  function aggregateCell(group, scan) {
    const counts = {};
    let matching = 0;
    for (const rg of group) {
      counts[rg.outcome] = (counts[rg.outcome] || 0) + 1;
      if (rg.rowsMatching > 0) matching++;
    }
    let major = group[0].outcome;
    for (const [o, n] of Object.entries(counts)) if (n > counts[major]) major = o;
    const index = mapState.cells.push({ group, scan }) - 1;
    const c = el('div', cellAttrs('rg agg o-' + major.toLowerCase(), major, index, summaryText(groupFacts(group, scan))));
    c.setAttribute('data-count', group.length);
    if (scan.oracle) {
      c.setAttribute('data-oracle', matching > 0 ? 'match' : 'none');
      c.classList.add(matching > 0 ? 'oracle-match' : 'oracle-none');
    }
    return c;
  }

  function renderMap(p) {
    const box = clear($('rowgroup-map'));
    const scans = (p.scans || []).filter((s) => s.rowGroups);
    const largest = scans.reduce((m, s) => Math.max(m, s.rowGroups.length), 0);
    mapState = { scans, largest, k: Math.max(1, Math.ceil(largest / MAX_CELLS)), offset: 0, cells: [] };
    clearDetail();
    setupZoom();
    if (!scans.length) {
      box.appendChild(el('p', { class: 'empty', text: 'This query scanned no Parquet table.' }));
      return;
    }
    drawMap();
  }

  function setupZoom() {
    const ctl = $('map-controls');
    const zoom = clear($('map-zoom'));
    const { largest } = mapState;
    ctl.hidden = largest <= MAX_CELLS;
    if (ctl.hidden) return;
    for (let k = mapState.k; ; k = Math.max(1, Math.floor(k / 4))) {
      zoom.appendChild(el('option', { value: k, text: k === 1 ? '1 row group per cell' : k + ' row groups per cell' }));
      if (k === 1) break;
    }
    zoom.value = String(mapState.k);
  }

  function drawMap() {
    const box = clear($('rowgroup-map'));
    const { scans, k } = mapState;
    mapState.cells = [];
    clearDetail();
    let windowMax = 0;
    for (const scan of scans) {
      const section = el('div', { class: 'map-scan', 'data-table': scan.table });
      const m = scan.metrics || {};
      const head = el('div', { class: 'map-head' },
        el('strong', { text: scan.table }),
        el('span', { class: 'muted', text: ' · ' + fmtInt(scan.rowGroups.length)
          + (scan.rowGroups.length === 1 ? ' row group · read ' : ' row groups · read ')
          + fmtInt(scan.rowGroups.filter((r) => !String(r.outcome).startsWith('PRUNED')).length)
          + (m.bytes_scanned !== undefined ? ' · ' + fmtBytes(m.bytes_scanned) + ' scanned' : '') }),
        scan.predicate ? el('code', { class: 'map-pred', text: scan.predicate }) : null);
      section.appendChild(head);
      const grid = el('div', { class: 'rg-grid' });
      const cells = Math.ceil(scan.rowGroups.length / k);
      windowMax = Math.max(windowMax, cells - MAX_CELLS);
      const from = cells > MAX_CELLS ? Math.min(mapState.offset, cells - MAX_CELLS) : 0;
      const to = Math.min(cells, from + MAX_CELLS);
      let file = null;
      for (let i = from; i < to; i++) {
        if (k === 1) {
          const rg = scan.rowGroups[i];
          if (rg.file !== file && file !== null) grid.appendChild(el('span', { class: 'file-break', 'aria-hidden': 'true' }));
          file = rg.file;
          grid.appendChild(singleCell(rg, scan));
        } else {
          grid.appendChild(aggregateCell(scan.rowGroups.slice(i * k, (i + 1) * k), scan));
        }
      }
      const firstCell = grid.querySelector('.rg');
      if (firstCell) firstCell.tabIndex = 0;
      section.appendChild(grid);
      if (k > 1 || cells > MAX_CELLS) {
        section.appendChild(el('p', { class: 'muted small', text: 'cells ' + fmtInt(from + 1) + '–' + fmtInt(to)
          + ' of ' + fmtInt(cells) + (k > 1 ? ', ' + k + ' row groups per cell (majority outcome; select a cell for its counts)' : '') }));
      }
      box.appendChild(section);
    }
    const win = $('map-window');
    win.max = String(Math.max(0, windowMax));
    $('map-window-label').hidden = windowMax <= 0;
    $('map-window-text').textContent = windowMax > 0 ? 'from cell ' + fmtInt(mapState.offset + 1) : '';
  }

  // ---------- compare ----------
  function summary(run) {
    const scans = (run.profile && run.profile.scans) || [];
    let total = 0;
    let pruned = 0;
    let bytes = 0;
    let pages = 0;
    for (const s of scans) {
      const m = s.metrics || {};
      total += m.row_groups_total || 0;
      pruned += m.row_groups_pruned || 0;
      bytes += m.bytes_scanned || 0;
      pages += m.pages_pruned || 0;
    }
    return { total, read: total - pruned, bytes, pages, ms: run.elapsedMs, rows: run.rowCount,
      steps: ((run.profile && run.profile.steps) || []).length,
      predicates: scans.map((s) => s.table + ': ' + (s.predicate || '(nothing pushed)')) };
  }

  async function compare() {
    if (runningId) return;
    const sql = $('sql').value;
    if (!sql.trim()) return;
    clearError();
    clearRun();
    const id = newQueryId();
    setRunning(id, 'Running with the simplifier on and off…');
    const view = $('compare-view');
    try {
      const r = await api('POST', 'api/compare', { sql, queryId: id });
      clear(view);
      view.hidden = false;
      const on = summary(r.on);
      const off = summary(r.off);
      const t = el('table', { class: 'grid compare' });
      t.appendChild(el('tr', null, el('th'), el('th', { text: 'simplifier on' }), el('th', { text: 'simplifier off' })));
      const line = (label, a, b, key) => t.appendChild(el('tr', { 'data-metric': key }, el('th', { text: label }),
        el('td', { class: 'on', text: a }), el('td', { class: 'off', text: b })));
      line('rows', fmtInt(on.rows), fmtInt(off.rows), 'rows');
      line('row groups read', fmtInt(on.read) + ' of ' + fmtInt(on.total), fmtInt(off.read) + ' of ' + fmtInt(off.total), 'row_groups_read');
      line('pages pruned', fmtInt(on.pages), fmtInt(off.pages), 'pages_pruned');
      line('bytes scanned', fmtBytes(on.bytes), fmtBytes(off.bytes), 'bytes_scanned');
      line('time', fmtMs(on.ms), fmtMs(off.ms), 'time');
      line('rewrites', String(on.steps), String(off.steps), 'steps');
      line('pushed predicate', on.predicates.join('\n'), off.predicates.join('\n'), 'predicate');
      view.appendChild(el('div', { class: 'compare-head' }, el('h2', { text: 'Simplifier on vs off' }),
        el('button', { type: 'button', id: 'compare-close', text: 'Close' })));
      view.appendChild(t);
      $('compare-close').addEventListener('click', () => { view.hidden = true; });
      // the panels show the run with the simplifier on (a comparison returns no rows)
      $('results').appendChild(el('caption', { class: 'empty', text: 'A comparison returns no rows: Run shows them.' }));
      renderPlan(r.on.profile || {});
      renderSteps(r.on.profile || {});
      renderMap(r.on.profile || {});
      $('status').textContent = 'Compared: ' + fmtInt(on.read) + ' row groups read with the simplifier, '
        + fmtInt(off.read) + ' without.';
    } catch (e) {
      $('status').textContent = 'Failed.';
      const err = e.err.message ? e.err : { message: e.message };
      showError(err);
      showFailure('The comparison failed: ' + err.message);
      view.hidden = false;
      view.appendChild(el('p', { class: 'failed', id: 'compare-failed', text: 'The comparison failed: ' + err.message }));
    } finally {
      setRunning(null);
    }
  }

  // ---------- tables ----------
  let tablesLoaded = false;
  async function loadTables() {
    if (tablesLoaded) return;
    const t = clear($('tables-list'));
    try {
      const list = await api('GET', 'api/tables');
      tablesLoaded = true;
      t.appendChild(el('tr', null, el('th', { text: 'table' }), el('th', { text: 'rows' }), el('th', { text: 'size' }),
        el('th', { text: 'files' })));
      for (const tb of list) {
        if (tb.error) continue; // listed under "Not served" with the reason
        const b = el('button', { type: 'button', class: 'link', 'data-table': tb.name, text: tb.name });
        b.addEventListener('click', () => showTable(tb.name));
        t.appendChild(el('tr', { 'data-table': tb.name }, el('td', null, b), el('td', { class: 'num', text: fmtInt(tb.rows) }),
          el('td', { class: 'num', text: fmtBytes(tb.bytes) }), el('td', { class: 'num', text: fmtInt(tb.files) })));
      }
      if (!list.some((tb) => !tb.error)) {
        t.appendChild(el('tr', null, el('td', { class: 'empty', colspan: 4,
          text: 'No table is served: put *.parquet files (or directories of them) in the data directory.' })));
      }
    } catch (e) {
      t.appendChild(el('tr', null, el('td', { class: 'error-text', text: e.message })));
    }
    loadUnserved();
  }

  // What the data directory holds that is not served, with the reason (the server's log says the same at start-up).
  let unserved = null;
  async function loadUnserved() {
    const box = clear($('unserved'));
    try {
      unserved = await api('GET', 'api/unserved');
    } catch (e) {
      box.appendChild(el('p', { class: 'error-text', text: e.message }));
      return;
    }
    const { files = [], tables = [], columns = [] } = unserved;
    box.appendChild(el('h3', { text: 'Not served' }));
    if (!files.length && !tables.length && !columns.length) {
      box.appendChild(el('p', { class: 'muted', id: 'unserved-none', text: 'Every file and column of the data directory is served.' }));
      return;
    }
    const list = el('ul', { class: 'unserved-list' });
    for (const f of files) {
      list.appendChild(el('li', { 'data-kind': 'file', 'data-name': f.name }, el('code', { text: f.name }), ' — ' + f.reason));
    }
    for (const tb of tables) {
      list.appendChild(el('li', { 'data-kind': 'table', 'data-name': tb.name }, 'table ', el('code', { text: tb.name }),
        ' — ' + tb.reason));
    }
    for (const c of columns) {
      list.appendChild(el('li', { 'data-kind': 'column', 'data-name': c.table + '.' + c.column }, 'column ',
        el('code', { text: c.table + '.' + c.column }), ' — not supported: ' + c.reason + ' (the table\'s other columns are served)'));
    }
    box.appendChild(list);
  }

  function yes(b) { return b ? 'yes' : 'no'; }

  async function showTable(name) {
    const box = clear($('table-detail'));
    box.appendChild(el('p', { class: 'muted', text: 'Loading ' + name + '…' }));
    let d;
    try {
      d = await api('GET', 'api/tables/' + encodeURIComponent(name));
    } catch (e) {
      clear(box).appendChild(el('p', { class: 'error-text', text: e.message }));
      return;
    }
    clear(box);
    box.setAttribute('data-table', d.name);
    box.appendChild(el('h2', { text: d.name }));
    const nFiles = (d.files || []).length;
    box.appendChild(el('p', null, fmtInt(d.rows) + ' rows in ' + fmtInt(nFiles) + (nFiles === 1 ? ' file, ' : ' files, ')
      + fmtBytes(d.bytes) + '.'));
    const sorted = d.sortedBy || [];
    box.appendChild(el('p', { id: 'table-sorted', class: 'sorted', 'data-sorted-by': sorted.join(',') },
      sorted.length ? 'Row groups are sorted by ' + sorted.join(', ')
        + ': their [min, max] ranges ascend without overlapping, so statistics can prune range predicates on '
        + (sorted.length > 1 ? 'these columns.' : 'this column.')
        : 'Row groups are not sorted by any column: no column\'s [min, max] ranges ascend without overlapping, so '
        + 'statistics prune only where values happen to cluster.'));
    if ((d.partitionColumns || []).length) {
      box.appendChild(el('p', null, 'Partitioned by ' + d.partitionColumns.join(', ') + ' (directories).'));
    }
    box.appendChild(el('h3', { text: 'Columns' }));
    const ct = el('table', { class: 'grid', id: 'table-columns' });
    ct.appendChild(el('tr', null, ...['column', 'SQL type', 'physical', 'nullable', 'codec', 'encodings', 'dictionary',
      'bloom filter', 'page index', 'compressed', 'uncompressed'].map((h) => el('th', { text: h }))));
    for (const c of d.columns || []) {
      ct.appendChild(el('tr', { 'data-column': c.name },
        el('td', { text: c.name }), el('td', { text: c.sqlType }), el('td', { text: c.physicalType }),
        el('td', { text: yes(c.nullable) }), el('td', { text: c.codec }), el('td', { text: (c.encodings || []).join(', ') }),
        el('td', { class: c.dictionary ? 'yes' : 'no', text: yes(c.dictionary) }),
        el('td', { class: c.bloomFilter ? 'yes' : 'no', text: yes(c.bloomFilter) }),
        el('td', { class: c.pageIndex ? 'yes' : 'no', text: yes(c.pageIndex) }),
        el('td', { class: 'num', text: fmtBytes(c.compressedBytes) }), el('td', { class: 'num', text: fmtBytes(c.uncompressedBytes) })));
    }
    box.appendChild(el('div', { class: 'results-wrap' }, ct));
    const notRead = ((unserved && unserved.columns) || []).filter((c) => c.table === d.name);
    if (notRead.length) {
      box.appendChild(el('p', { class: 'unsupported', id: 'table-unsupported' }, 'Not served (Quiver cannot read them yet): '
        + notRead.map((c) => c.column + ' (' + c.reason + ')').join(', ') + '.'));
    }
    box.appendChild(el('h3', { text: 'Files and row groups' }));
    for (const f of d.files || []) {
      const det = el('details', { class: 'file' });
      const part = Object.entries(f.partition || {}).map(([k, v]) => k + '=' + v).join(', ');
      det.appendChild(el('summary', null, el('code', { text: f.path }),
        ' · ' + fmtBytes(f.length) + ' · ' + fmtInt((f.rowGroups || []).length) + ' row groups' + (part ? ' · ' + part : '')));
      const rt = el('table', { class: 'grid small' });
      rt.appendChild(el('tr', null, ...['#', 'rows', 'compressed', 'column', 'min', 'max', 'nulls', 'dict', 'bloom']
        .map((h) => el('th', { text: h }))));
      for (const rg of f.rowGroups || []) {
        const cols = rg.columns || [];
        cols.forEach((c, i) => {
          const tr = el('tr');
          if (i === 0) {
            for (const v of [String(rg.index), fmtInt(rg.rows), fmtBytes(rg.compressedBytes)]) {
              const td = el('td', { class: 'num', text: v });
              td.rowSpan = cols.length;
              tr.appendChild(td);
            }
          }
          tr.appendChild(el('td', { text: c.column }));
          tr.appendChild(c.min === null || c.min === undefined ? el('td', { class: 'null', text: 'n/a' }) : el('td', { text: c.min }));
          tr.appendChild(c.max === null || c.max === undefined ? el('td', { class: 'null', text: 'n/a' }) : el('td', { text: c.max }));
          tr.appendChild(el('td', { class: 'num', text: c.nullCount === null || c.nullCount === undefined ? 'n/a' : fmtInt(c.nullCount) }));
          tr.appendChild(el('td', { text: yes(c.hasDictionary) }));
          tr.appendChild(el('td', { text: yes(c.hasBloomFilter) }));
          rt.appendChild(tr);
        });
        if (!cols.length) rt.appendChild(el('tr', null, el('td', { text: String(rg.index) }), el('td', { text: fmtInt(rg.rows) })));
      }
      det.appendChild(el('div', { class: 'results-wrap' }, rt));
      box.appendChild(det);
    }
  }

  // ---------- benchmarks ----------
  // The result files as pages for users: a readable title, one line on what was measured, the chart, the summary
  // tables. The files' prose (commands, machines, development notes) stays in bench/results for developers.
  const BENCH_PAGES = [
    ['pruning.md', 'Pruning', 'How much row-group and page pruning saves on TPC-H lineitem (scale factor 1), by data '
      + 'layout, next to DuckDB on the same files.'],
    ['tpch.md', 'TPC-H', 'The TPC-H queries at scale factor 1: Quiver\'s times next to DuckDB\'s on the same Parquet files.'],
    ['tpcds.md', 'TPC-DS', 'The TPC-DS queries at scale factor 1: Quiver\'s times next to DuckDB\'s on the same Parquet files.'],
    ['scaling.md', 'Scaling', 'The pruning queries at scale factors 1 and 10: how each engine\'s time grows with the data.'],
    ['scaleout.md', 'Scale-out', 'One query\'s result read through several endpoints and replicas at once.'],
    ['scaleout-spark.md', 'Spark over Quiver', 'Spark SQL reading through Quiver, next to Spark\'s own Parquet reader.'],
    ['load.md', 'Load', 'Many clients at once: throughput and latency under the per-user limits.'],
    ['inlist.md', 'IN lists', 'Filtering a string column by a constant IN list of many items.'],
    ['runtime-filters.md', 'Runtime filters', 'Joins whose build keys prune the other side\'s row groups before it is '
      + 'read: before and after, next to DuckDB on the same TPC-H files.'],
    ['range-joins.md', 'Range joins and spilling', 'Joins on BETWEEN and inequalities without nested loops, and a '
      + 'join larger than the query\'s memory spilling to disk, next to DuckDB.'],
    ['pruning-joins.md', 'Joins that prune', 'A selective filter on TPC-H orders joined to lineitem: lineitem\'s row '
      + 'groups read with the join\'s runtime filter and without it, next to DuckDB.'],
    ['aggregation.md', 'Aggregation', 'Integer sums exact in every plan; grouped and DISTINCT aggregation over '
      + '20 M rows (dictionary keys, typed keys, DISTINCT split): before and after, next to DuckDB.'],
    ['h2o.md', 'H2O group-by', 'H2O.ai\'s db-benchmark group-by task: its ten queries on its generated 10 M-row '
      + 'data at the default memory, answers checked, next to DuckDB.'],
    ['top-n.md', 'Top-N that prunes', 'ORDER BY … LIMIT 10 on 20 M rows: row groups read best first, the rest '
      + 'skipped once they cannot beat the tenth row, before and after, next to DuckDB.'],
    ['statistics-answers.md', 'Answers from statistics', 'count(*), min and max over a whole table answered '
      + 'from the Parquet footers, no page read: before and after, next to DuckDB.'],
    ['floor.md', 'Per-query floor', 'What the smallest query (SELECT 1) costs from a client, end to end.'],
    ['profile.md', 'Where the time goes', 'Where full-scan queries spend their CPU: decompressing, decoding, filtering, '
      + 'sending.'],
    ['jmh.md', 'Micro-benchmarks', 'JMH micro-benchmarks of Parquet decoding and of the filter and aggregate kernels.'],
    ['targets.md', 'Targets', 'Where Quiver stands against its performance targets.'],
  ];
  /** Development notes, not for users: "this branch", commit ids, load averages. */
  const DEV_NOTE = /this branch|load average|\bcommit\b|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b/i;

  function benchTitle(name) {
    const known = BENCH_PAGES.find(([file]) => file === name);
    if (known) return known[1];
    const base = name.replace(/\.[a-z]+$/i, '').replace(/[-_]+/g, ' ');
    return base.charAt(0).toUpperCase() + base.slice(1);
  }

  function benchOrder(name) {
    const i = BENCH_PAGES.findIndex(([file]) => file === name);
    return i < 0 ? BENCH_PAGES.length : i;
  }

  let benchLoaded = false;
  async function loadBench() {
    if (benchLoaded) return;
    const nav = clear($('bench-list'));
    try {
      const list = await api('GET', 'api/bench');
      benchLoaded = true;
      const names = new Set(list.map((i) => i.name));
      // a chart is shown on its results' page, not as a page of its own
      const pages = list.filter((i) => !(/\.svg$/i.test(i.name) && names.has(i.name.replace(/\.svg$/i, '.md'))))
        .sort((a, b) => benchOrder(a.name) - benchOrder(b.name) || a.name.localeCompare(b.name));
      for (const item of pages) {
        const b = el('button', { type: 'button', class: 'bench-item', 'data-name': item.name, text: benchTitle(item.name) });
        b.addEventListener('click', () => showBench(item, b, names));
        nav.appendChild(b);
      }
      const first = pages[0];
      if (first) showBench(first, nav.firstChild, names);
    } catch (e) {
      nav.appendChild(el('p', { class: 'error-text', text: e.message }));
    }
  }

  async function showBench(item, button, names) {
    for (const b of document.querySelectorAll('.bench-item')) b.classList.toggle('active', b === button);
    const view = clear($('bench-view'));
    view.setAttribute('data-name', item.name);
    view.appendChild(el('h2', { text: benchTitle(item.name) }));
    const known = BENCH_PAGES.find(([file]) => file === item.name);
    if (known) view.appendChild(el('p', { class: 'bench-about', text: known[2] }));
    const svgName = /\.svg$/i.test(item.name) ? item.name : item.name.replace(/\.md$/i, '.svg');
    const chartBox = el('div', { class: 'chart-box' });
    view.appendChild(chartBox);
    if (names.has(svgName)) showChart(svgName, chartBox);
    if (svgName === item.name) return;
    let r;
    try {
      r = await api('GET', 'api/bench/' + encodeURIComponent(item.name));
    } catch (e) {
      view.appendChild(el('p', { class: 'error-text', text: e.message }));
      return;
    }
    const text = typeof r.text === 'string' ? r.text : '';
    if (item.kind === 'markdown' || /\.md$/i.test(item.name)) renderMarkdown(text, view, true);
    else view.appendChild(el('pre', null, el('code', { text })));
  }

  // A chart drawn inline (so that its text can be measured): only shapes and text are copied from the file, with
  // plain attributes; then its view box grows to hold everything drawn, so that no label is cut.
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const SVG_TAGS = new Set(['g', 'text', 'tspan', 'rect', 'line', 'polyline', 'polygon', 'path', 'circle', 'title']);
  const SVG_ATTRS = new Set(['x', 'y', 'x1', 'y1', 'x2', 'y2', 'dx', 'dy', 'width', 'height', 'rx', 'ry', 'cx', 'cy', 'r',
    'd', 'points', 'fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'opacity', 'fill-opacity', 'font-size',
    'font-family', 'font-weight', 'text-anchor', 'dominant-baseline', 'transform']);

  function copySvg(from, to) {
    for (const c of from.childNodes) {
      if (c.nodeType === Node.TEXT_NODE) {
        to.appendChild(document.createTextNode(c.nodeValue));
      } else if (c.nodeType === Node.ELEMENT_NODE && SVG_TAGS.has(c.localName)) {
        const e = document.createElementNS(SVG_NS, c.localName);
        for (const a of c.attributes) {
          if (SVG_ATTRS.has(a.name) && !/url\s*\(|script:/i.test(a.value)) e.setAttribute(a.name, a.value);
        }
        to.appendChild(copySvg(c, e));
      }
    }
    return to;
  }

  async function showChart(name, box) {
    let r;
    try {
      r = await api('GET', 'api/bench/' + encodeURIComponent(name));
    } catch (e) {
      box.appendChild(el('p', { class: 'error-text', text: e.message }));
      return;
    }
    const parsed = new DOMParser().parseFromString(String(r.text || ''), 'image/svg+xml').documentElement;
    if (!parsed || parsed.localName !== 'svg') return;
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('id', 'bench-chart');
    svg.setAttribute('class', 'chart');
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', benchTitle(name.replace(/\.svg$/i, '.md')) + ' chart');
    for (const a of ['font-family', 'font-size']) if (parsed.getAttribute(a)) svg.setAttribute(a, parsed.getAttribute(a));
    copySvg(parsed, svg);
    box.appendChild(svg);
    fitSvg(svg, Number(parsed.getAttribute('width')) || 0, Number(parsed.getAttribute('height')) || 0);
  }

  function fitSvg(svg, width, height) {
    const pad = 6;
    const b = svg.getBBox();
    const x0 = Math.min(0, b.x - pad);
    const y0 = Math.min(0, b.y - pad);
    const x1 = Math.max(width, b.x + b.width + pad);
    const y1 = Math.max(height, b.y + b.height + pad);
    svg.setAttribute('viewBox', [x0, y0, x1 - x0, y1 - y0].map((v) => Math.ceil(v)).join(' '));
    svg.setAttribute('width', String(Math.ceil(x1 - x0)));
    svg.setAttribute('height', String(Math.ceil(y1 - y0)));
  }

  // A tiny, safe markdown renderer: headings, paragraphs, bullet lists, pipe tables, `code`, **bold**, [text](url)
  // shown as its text. It only ever creates elements and text nodes.
  function inline(text, parent) {
    const re = /(`[^`]+`|\*\*[^*]+\*\*|\[[^\]]+\]\([^)]*\))/g;
    let last = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      const t = m[0];
      if (t.startsWith('`')) parent.appendChild(el('code', { text: t.slice(1, -1) }));
      else if (t.startsWith('**')) parent.appendChild(el('strong', { text: t.slice(2, -2) }));
      else parent.appendChild(el('span', { class: 'md-link', text: t.slice(1, t.indexOf('](')) }));
      last = m.index + t.length;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
    return parent;
  }

  function splitRow(line) {
    let s = line.trim();
    if (s.startsWith('|')) s = s.slice(1);
    if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
    const cells = [];
    let cur = '';
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '\\' && s[i + 1] === '|') { cur += '|'; i++; } else if (s[i] === '|') { cells.push(cur.trim()); cur = ''; } else cur += s[i];
    }
    cells.push(cur.trim());
    return cells;
  }

  // summaryOnly: the tables alone, each under its section's heading (the first heading, the file's title, left out),
  // rows and headings that are development notes dropped
  function renderMarkdown(src, target, summaryOnly) {
    const lines = String(src).replace(/\r\n?/g, '\n').split('\n');
    let heading = null;
    const isSep = (l) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(l);
    let i = 0;
    let para = [];
    const flush = () => {
      if (para.length && !summaryOnly) target.appendChild(inline(para.join(' '), el('p')));
      para = [];
    };
    while (i < lines.length) {
      const line = lines[i];
      const h = /^(#{1,6})\s+(.*)$/.exec(line);
      if (h) {
        flush();
        const text = h[2].replace(/\s+#+\s*$/, '');
        const level = 'h' + Math.min(6, h[1].length + 1);
        if (!summaryOnly) target.appendChild(inline(text, el(level)));
        else heading = h[1].length > 1 && !DEV_NOTE.test(text) ? inline(text.replace(/\s*\(issue \d+\)/gi, ''), el('h3')) : null;
        i++;
      } else if (line.includes('|') && i + 1 < lines.length && isSep(lines[i + 1])) {
        flush();
        const aligns = splitRow(lines[i + 1]).map((c) => c.endsWith(':') ? (c.startsWith(':') ? 'center' : 'right') : 'left');
        const table = el('table', { class: 'grid md-table' });
        const head = el('tr');
        splitRow(line).forEach((c, j) => head.appendChild(inline(c, el('th', { class: 'al-' + (aligns[j] || 'left') }))));
        table.appendChild(el('thead', null, head));
        const body = el('tbody');
        i += 2;
        while (i < lines.length && lines[i].includes('|') && lines[i].trim() !== '') {
          if (summaryOnly && DEV_NOTE.test(lines[i])) { i++; continue; }
          const tr = el('tr');
          splitRow(lines[i]).forEach((c, j) => tr.appendChild(inline(c, el('td', { class: 'al-' + (aligns[j] || 'left') }))));
          body.appendChild(tr);
          i++;
        }
        table.appendChild(body);
        if (heading) target.appendChild(heading);
        heading = null;
        target.appendChild(el('div', { class: 'results-wrap' }, table));
      } else if (/^\s*[-*]\s+/.test(line)) {
        flush();
        const ul = el('ul');
        while (i < lines.length && /^\s*[-*]\s+/.test(lines[i])) {
          ul.appendChild(inline(lines[i].replace(/^\s*[-*]\s+/, ''), el('li')));
          i++;
        }
        if (!summaryOnly) target.appendChild(ul);
      } else if (/^```/.test(line)) {
        flush();
        const buf = [];
        i++;
        while (i < lines.length && !/^```/.test(lines[i])) buf.push(lines[i++]);
        i++;
        if (!summaryOnly) target.appendChild(el('pre', null, el('code', { text: buf.join('\n') })));
      } else if (line.trim() === '') {
        flush();
        i++;
      } else {
        para.push(line.trim());
        i++;
      }
    }
    flush();
  }

  // ---------- start ----------
  async function start() {
    try {
      info = await api('GET', 'api/info');
    } catch (e) {
      if (e.status === 401) return; // showLogin already ran
      $('status').textContent = 'The console could not reach the server: ' + e.message;
      return;
    }
    if (info.authRequired && !sessionStorage.getItem(TOKEN_KEY)) {
      showLogin();
      return;
    }
    $('login').hidden = true;
    $('whoami').textContent = (info.user ? info.user + ' · ' : '') + 'Quiver ' + (info.version || '');
    const active = document.querySelector('.tab.active') || $('tab-query');
    for (const p of document.querySelectorAll('.page')) p.hidden = p.id !== active.dataset.page;
    const sel = $('samples');
    while (sel.options.length > 1) sel.remove(1);
    for (const s of info.samples || []) {
      const o = el('option', { value: s.sql, text: s.name });
      sel.appendChild(o);
    }
    // the first sample fills an empty editor: it names tables this server serves
    const first = (info.samples || [])[0];
    if (first && !$('sql').value.trim()) {
      $('sql').value = first.sql;
      sel.value = first.sql;
    }
    updateGutter();
  }

  function wire() {
    renderLegend();
    for (const t of document.querySelectorAll('.tab')) t.addEventListener('click', () => showTab(t));
    $('login').addEventListener('submit', login);
    $('run').addEventListener('click', run);
    $('cancel').addEventListener('click', cancel);
    $('compare').addEventListener('click', compare);
    $('samples').addEventListener('change', () => {
      if ($('samples').value) {
        $('sql').value = $('samples').value;
        clearError();
      }
    });
    const ta = $('sql');
    ta.addEventListener('input', () => {
      if (!$('error').hidden) { delete $('gutter').dataset.errorLine; }
      updateGutter();
      // the sample picker names the text while it is a sample's
      const sel = $('samples');
      const match = Array.from(sel.options).find((o) => o.value && o.value === ta.value);
      sel.value = match ? match.value : '';
    });
    ta.addEventListener('scroll', () => { $('gutter').scrollTop = ta.scrollTop; });
    ta.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); run(); }
      if (ev.key === 'Tab' && !ev.shiftKey && !ev.ctrlKey) {
        ev.preventDefault();
        ta.setRangeText('  ', ta.selectionStart, ta.selectionEnd, 'end');
        updateGutter();
      }
    });
    const map = $('rowgroup-map');
    map.addEventListener('click', (ev) => showDetail(ev.target.closest('.rg')));
    map.addEventListener('focusin', (ev) => showDetail(ev.target.closest('.rg')));
    map.addEventListener('keydown', (ev) => {
      const cell = ev.target.closest('.rg');
      if (!cell) return;
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        showDetail(cell);
      } else if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') {
        ev.preventDefault();
        const cells = Array.from(cell.parentNode.querySelectorAll('.rg'));
        const next = cells[cells.indexOf(cell) + (ev.key === 'ArrowRight' ? 1 : -1)];
        if (next) {
          cell.tabIndex = -1;
          next.tabIndex = 0;
          next.focus();
        }
      }
    });
    $('map-zoom').addEventListener('change', () => {
      mapState.k = Number($('map-zoom').value);
      mapState.offset = 0;
      $('map-window').value = '0';
      drawMap();
    });
    $('map-window').addEventListener('input', () => {
      mapState.offset = Number($('map-window').value);
      drawMap();
    });
    updateGutter();
    start();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', wire);
  else wire();
})();

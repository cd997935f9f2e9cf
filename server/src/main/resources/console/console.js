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
    ['READ_PAGES_PRUNED', 'read, pages pruned (shaded part)'],
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
      $('status').textContent = (e.status === 499 || e.err.code === 'CANCELLED' || e.err.status === 'CANCELLED')
        ? 'Cancelled.' : 'Failed.';
      showError(e.err.message ? e.err : { message: e.message });
    } finally {
      setRunning(null);
    }
  }

  function clearRun() {
    clear($('results'));
    clear($('plan')).appendChild(el('p', { class: 'empty', text: 'Waiting for the query…' }));
    clear($('steps'));
    $('steps-empty').hidden = false;
    $('steps-empty').textContent = 'Waiting for the query…';
    clear($('rowgroup-map')).appendChild(el('p', { class: 'empty', text: 'Waiting for the query…' }));
    $('map-controls').hidden = true;
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
    const v = Number(node[key]);
    if (v > acc) acc = v;
    for (const c of node.children || []) acc = treeMax(c, key, acc);
    return acc;
  }

  function renderPlan(p) {
    const box = clear($('plan'));
    const scans = new Map((p.scans || []).map((s) => [s.nodeId, s]));
    for (const [title, node] of [['Physical plan', p.physical], ['Logical plan', p.logical]]) {
      if (!node) continue;
      const maxRows = treeMax(node, 'outputRows', 0);
      const maxMs = treeMax(node, 'elapsedMs', 0);
      const sec = el('div', { class: 'plan-tree', 'data-tree': title.startsWith('Physical') ? 'physical' : 'logical' },
        el('h3', { text: title }));
      const ul = el('ul', { class: 'plan-node root' });
      ul.appendChild(planItem(node, maxRows, maxMs, scans));
      sec.appendChild(ul);
      box.appendChild(sec);
    }
    if (!box.firstChild) box.appendChild(el('p', { class: 'empty', text: 'No plan.' }));
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
    const li = el('li', { 'data-operator': node.operator, 'data-rows': node.outputRows, 'data-ms': node.elapsedMs,
      'data-id': node.id });
    const line = el('div', { class: 'node-line' },
      el('span', { class: 'op', text: node.operator }),
      node.detail ? el('code', { class: 'detail', text: node.detail }) : null);
    li.appendChild(line);
    if (node.outputRows >= 0 || node.elapsedMs >= 0) {
      li.appendChild(el('div', { class: 'bars' },
        bar('bar-rows', node.outputRows, maxRows, fmtInt(node.outputRows) + ' rows'),
        bar('bar-ms', node.elapsedMs, maxMs, fmtMs(node.elapsedMs))));
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
      ['row_groups_pruned_dictionary', 'dictionary'], ['row_groups_pruned_bloom', 'bloom filter']]) {
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
    empty.hidden = steps.length > 0;
    empty.textContent = p.simplified === false ? 'The simplifier was off for this run.'
      : 'No rewrite fired: the predicates were already in pushable form.';
  }

  // ---------- row-group map ----------
  function renderLegend() {
    const lg = clear($('map-legend'));
    for (const [name, text] of OUTCOMES) {
      lg.appendChild(el('span', { class: 'legend-item' }, el('span', { class: 'swatch o-' + name.toLowerCase() }),
        document.createTextNode(text)));
    }
    lg.appendChild(el('span', { class: 'legend-item' }, el('span', { class: 'swatch oracle-swatch' }),
      document.createTextNode('oracle: holds a match')));
  }

  function cellTitle(rg, scan) {
    const lines = [rg.file + ' · row group ' + rg.index, fmtInt(rg.rows) + ' rows · ' + fmtBytes(rg.compressedBytes),
      OUTCOME_TEXT[rg.outcome] || rg.outcome];
    if (rg.pagesTotal > 0) lines.push('pages pruned: ' + rg.pagesPruned + ' of ' + rg.pagesTotal);
    if (rg.rowsRead >= 0 && !String(rg.outcome).startsWith('PRUNED')) lines.push('rows read: ' + fmtInt(rg.rowsRead));
    if (scan.oracle && rg.rowsMatching >= 0) lines.push('oracle: ' + fmtInt(rg.rowsMatching) + ' rows match');
    for (const c of rg.stats || []) {
      lines.push(c.column + ': min ' + (c.min ?? 'n/a') + ', max ' + (c.max ?? 'n/a') + ', nulls '
        + (c.nullCount ?? 'n/a') + (c.hasDictionary ? ', dictionary' : '') + (c.hasBloomFilter ? ', bloom filter' : ''));
    }
    return lines.join('\n');
  }

  function singleCell(rg, scan) {
    const c = el('div', { class: 'rg o-' + String(rg.outcome).toLowerCase(), 'data-outcome': rg.outcome,
      'data-file': rg.file, 'data-index': rg.index, title: cellTitle(rg, scan) });
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
    let rows = 0;
    let matching = 0;
    for (const rg of group) {
      counts[rg.outcome] = (counts[rg.outcome] || 0) + 1;
      rows += rg.rows;
      if (rg.rowsMatching > 0) matching++;
    }
    let major = group[0].outcome;
    for (const [o, n] of Object.entries(counts)) if (n > counts[major]) major = o;
    const first = group[0];
    const last = group[group.length - 1];
    const lines = [group.length + ' row groups: ' + first.file + ' #' + first.index + ' … ' + last.file + ' #' + last.index,
      fmtInt(rows) + ' rows'];
    for (const [o] of OUTCOMES) if (counts[o]) lines.push(counts[o] + ' ' + OUTCOME_TEXT[o]);
    if (scan.oracle) lines.push('oracle: ' + matching + ' hold a match');
    const c = el('div', { class: 'rg agg o-' + major.toLowerCase(), 'data-outcome': major,
      'data-count': group.length, title: lines.join('\n') });
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
    mapState = { scans, largest, k: Math.max(1, Math.ceil(largest / MAX_CELLS)), offset: 0 };
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
          if (rg.file !== file && file !== null) grid.appendChild(el('span', { class: 'file-break', title: rg.file }));
          file = rg.file;
          grid.appendChild(singleCell(rg, scan));
        } else {
          grid.appendChild(aggregateCell(scan.rowGroups.slice(i * k, (i + 1) * k), scan));
        }
      }
      section.appendChild(grid);
      if (k > 1 || cells > MAX_CELLS) {
        section.appendChild(el('p', { class: 'muted small', text: 'cells ' + fmtInt(from + 1) + '–' + fmtInt(to)
          + ' of ' + fmtInt(cells) + (k > 1 ? ', ' + k + ' row groups per cell (majority colour; counts on hover)' : '') }));
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
      $('status').textContent = 'Compared: ' + fmtInt(on.read) + ' row groups read with the simplifier, '
        + fmtInt(off.read) + ' without.';
    } catch (e) {
      $('status').textContent = 'Failed.';
      showError(e.err.message ? e.err : { message: e.message });
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
        const b = el('button', { type: 'button', class: 'link', 'data-table': tb.name, text: tb.name });
        b.addEventListener('click', () => showTable(tb.name));
        t.appendChild(el('tr', { 'data-table': tb.name }, el('td', null, b), el('td', { class: 'num', text: fmtInt(tb.rows) }),
          el('td', { class: 'num', text: fmtBytes(tb.bytes) }), el('td', { class: 'num', text: fmtInt(tb.files) })));
      }
    } catch (e) {
      t.appendChild(el('tr', null, el('td', { class: 'error-text', text: e.message })));
    }
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
  let benchLoaded = false;
  async function loadBench() {
    if (benchLoaded) return;
    const nav = clear($('bench-list'));
    try {
      const list = await api('GET', 'api/bench');
      benchLoaded = true;
      for (const item of list) {
        const b = el('button', { type: 'button', class: 'bench-item', 'data-name': item.name, text: item.name });
        b.addEventListener('click', () => showBench(item, b));
        nav.appendChild(b);
      }
      const first = list.find((i) => i.name === 'pruning.md') || list[0];
      if (first) showBench(first, nav.querySelector('[data-name="' + CSS.escape(first.name) + '"]'));
    } catch (e) {
      nav.appendChild(el('p', { class: 'error-text', text: e.message }));
    }
  }

  function chart(name) {
    // /api/bench/<file> is public build output (like /static/), so an <img> loads it; an SVG in <img> runs no script
    const img = el('img', { id: 'bench-chart', class: 'chart', alt: name + ' chart' });
    img.src = 'api/bench/' + encodeURIComponent(name);
    return img;
  }

  async function showBench(item, button) {
    for (const b of document.querySelectorAll('.bench-item')) b.classList.toggle('active', b === button);
    const view = clear($('bench-view'));
    view.setAttribute('data-name', item.name);
    if (item.kind === 'svg' || /\.svg$/i.test(item.name)) {
      view.appendChild(el('h2', { text: item.name }));
      view.appendChild(chart(item.name));
      return;
    }
    let r;
    try {
      r = await api('GET', 'api/bench/' + encodeURIComponent(item.name));
    } catch (e) {
      view.appendChild(el('p', { class: 'error-text', text: e.message }));
      return;
    }
    const text = typeof r.text === 'string' ? r.text : '';
    if (item.kind === 'markdown' || /\.md$/i.test(item.name)) renderMarkdown(text, view);
    else view.appendChild(el('pre', null, el('code', { text })));
    // the chart of the same name under the page's title
    const svgName = item.name.replace(/\.md$/i, '.svg');
    if (svgName !== item.name && document.querySelector('.bench-item[data-name="' + CSS.escape(svgName) + '"]')) {
      view.insertBefore(chart(svgName), view.children[1] || null);
    }
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

  function renderMarkdown(src, target) {
    const lines = String(src).replace(/\r\n?/g, '\n').split('\n');
    const isSep = (l) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(l);
    let i = 0;
    let para = [];
    const flush = () => {
      if (para.length) target.appendChild(inline(para.join(' '), el('p')));
      para = [];
    };
    while (i < lines.length) {
      const line = lines[i];
      const h = /^(#{1,6})\s+(.*)$/.exec(line);
      if (h) {
        flush();
        target.appendChild(inline(h[2].replace(/\s+#+\s*$/, ''), el('h' + Math.min(6, h[1].length + 1))));
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
          const tr = el('tr');
          splitRow(lines[i]).forEach((c, j) => tr.appendChild(inline(c, el('td', { class: 'al-' + (aligns[j] || 'left') }))));
          body.appendChild(tr);
          i++;
        }
        table.appendChild(body);
        target.appendChild(el('div', { class: 'results-wrap' }, table));
      } else if (/^\s*[-*]\s+/.test(line)) {
        flush();
        const ul = el('ul');
        while (i < lines.length && /^\s*[-*]\s+/.test(lines[i])) {
          ul.appendChild(inline(lines[i].replace(/^\s*[-*]\s+/, ''), el('li')));
          i++;
        }
        target.appendChild(ul);
      } else if (/^```/.test(line)) {
        flush();
        const buf = [];
        i++;
        while (i < lines.length && !/^```/.test(lines[i])) buf.push(lines[i++]);
        i++;
        target.appendChild(el('pre', null, el('code', { text: buf.join('\n') })));
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

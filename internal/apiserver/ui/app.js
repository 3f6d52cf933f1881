// The tenant's page: signs in with the identity provider (authorization code with PKCE) and
// reads and acts through slipway server's API with the person's ID token. Everything shown is
// set as text, never as markup: tenants name their instances and steps.
'use strict';
const $ = (id) => document.getElementById(id);
const store = window.sessionStorage;
let cfg = null;
let token = store.getItem('slipway.token');
let current = null; // the instance shown: {ref, lastId, stream}

const b64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const random = (n) => b64url(crypto.getRandomValues(new Uint8Array(n)));
const redirectURI = () => location.origin + '/ui/';

function fail(err) { $('error').textContent = String(err && err.message ? err.message : err); }
function clearError() { $('error').textContent = ''; }
function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

async function discovery() {
  const r = await fetch(cfg.issuer.replace(/\/$/, '') + '/.well-known/openid-configuration');
  if (!r.ok) throw new Error('the identity provider did not answer its discovery: ' + r.status);
  return r.json();
}

async function signIn() {
  const verifier = random(32);
  const state = random(16);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  store.setItem('slipway.pkce', JSON.stringify({ verifier, state }));
  const u = new URL((await discovery()).authorization_endpoint);
  u.search = new URLSearchParams({
    response_type: 'code', client_id: cfg.clientId, redirect_uri: redirectURI(), scope: cfg.scopes,
    state, code_challenge: b64url(new Uint8Array(digest)), code_challenge_method: 'S256', prompt: 'login',
  }).toString();
  location.assign(u.toString());
}

async function finishSignIn(q) {
  const saved = JSON.parse(store.getItem('slipway.pkce') || '{}');
  store.removeItem('slipway.pkce');
  history.replaceState(null, '', '/ui/');
  if (q.get('error')) throw new Error('sign-in: ' + q.get('error') + ': ' + (q.get('error_description') || ''));
  if (!saved.state || saved.state !== q.get('state')) throw new Error('sign-in: the answer is not for this page (state differs)');
  const r = await fetch((await discovery()).token_endpoint, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: q.get('code'), redirect_uri: redirectURI(), client_id: cfg.clientId, code_verifier: saved.verifier }),
  });
  const t = await r.json();
  if (!r.ok || !t.id_token) throw new Error('sign-in: ' + (t.error_description || t.error || r.status));
  token = t.id_token;
  store.setItem('slipway.token', token);
}

function signOut() {
  if (current && current.stream) current.stream.abort();
  store.removeItem('slipway.token');
  token = null;
  location.assign('/ui/');
}

// api calls slipway server as the person; an error is its problem detail's, naming the fields.
async function api(method, path, body) {
  const headers = { Authorization: 'Bearer ' + token };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => null);
  if (r.status === 401) { store.removeItem('slipway.token'); }
  if (!r.ok) {
    const fields = (data && data.errors || []).map((f) => f.field + ': ' + f.message).join('\n');
    throw new Error((data && data.detail || r.statusText) + (fields ? '\n' + fields : ''));
  }
  return data;
}

const seg = encodeURIComponent;
const instPath = (ref) => '/v1/instances/' + ref.split('/').map(seg).join('/');

async function loadInstances() {
  const items = await api('GET', '/v1/instances');
  const body = $('instances');
  body.replaceChildren();
  for (const it of items) {
    const ref = it.tenant + '/' + it.name;
    const tr = el('tr', undefined, { class: 'pick', 'data-ref': ref });
    tr.append(el('td', ref), el('td', it.state), el('td', it.ready || 'Unknown'), el('td', it.stack || ''));
    tr.addEventListener('click', () => show(ref).catch(fail));
    body.append(tr);
  }
  $('none').hidden = items.length > 0;
}

async function loadStacks() {
  const tenant = $('tenant').value.trim();
  $('stack').replaceChildren();
  $('params').replaceChildren(el('legend', 'parameters'));
  if (!tenant) return;
  const stacks = await api('GET', '/v1/stacks?tenant=' + seg(tenant));
  for (const s of stacks) $('stack').append(el('option', s.name, { value: s.name }));
  if (stacks.length) await loadForm();
}

// loadForm builds the parameters' inputs from the stack's JSON Schema.
async function loadForm() {
  const tenant = $('tenant').value.trim();
  const schema = await api('GET', '/v1/stacks/' + seg($('stack').value) + '/schema?tenant=' + seg(tenant));
  const box = $('params');
  box.replaceChildren(el('legend', 'parameters'));
  const required = schema.required || [];
  for (const [name, p] of Object.entries(schema.properties || {})) {
    let input;
    if (p.enum) {
      input = el('select');
      for (const v of p.enum) input.append(el('option', v, { value: v }));
    } else if (p.type === 'boolean') {
      input = el('input', undefined, { type: 'checkbox' });
    } else {
      input = el('input', undefined, { type: p.type === 'integer' || p.type === 'number' ? 'number' : 'text' });
      if (p.type === 'number') input.step = 'any';
    }
    input.name = 'param-' + name;
    input.dataset.param = name;
    input.dataset.type = p.type;
    if (p.default !== undefined) {
      if (p.type === 'boolean') input.checked = p.default; else input.value = String(p.default);
    }
    if (required.includes(name)) input.required = true;
    if (p.readOnly) input.disabled = true;
    const label = el('label');
    label.append(el('span', name + (p['x-slipway-initial'] ? ' (initial)' : '')), input);
    if (p.description) label.append(el('small', ' ' + p.description, { class: 'muted' }));
    box.append(label);
  }
}

async function create(ev) {
  ev.preventDefault();
  clearError();
  const params = {};
  for (const input of $('params').querySelectorAll('[data-param]')) {
    const t = input.dataset.type;
    if (t === 'boolean') params[input.dataset.param] = input.checked;
    else if (input.value === '') continue;
    else params[input.dataset.param] = t === 'integer' || t === 'number' ? Number(input.value) : input.value;
  }
  const ref = $('tenant').value.trim() + '/' + $('name').value.trim();
  // The instance file in JSON, which is YAML.
  const configYAML = JSON.stringify({ stack: $('stack').value, parameters: params });
  await act(ref, 'operations/create', { request: { configYAML } }, true);
}

// act sends a request and follows the instance's steps until it ends.
async function act(ref, path, body, fresh) {
  await api('POST', instPath(ref) + '/' + path, body);
  if (fresh || !current || current.ref !== ref) await show(ref);
  else follow(ref, current.lastId + 1);
  await loadInstances();
}

async function show(ref) {
  clearError();
  if (current && current.stream) current.stream.abort();
  current = { ref, lastId: -1, stream: null };
  $('instance').hidden = false;
  $('log').hidden = false;
  $('ref').textContent = ref;
  $('events').replaceChildren();
  await refresh();
  follow(ref, 0);
}

async function refresh() {
  if (!current) return;
  const ref = current.ref;
  const st = await api('GET', instPath(ref) + '/status');
  if (!current || current.ref !== ref) return;
  $('state').textContent = st.state;
  const ready = (st.conditions || []).find((c) => c.type === 'Ready');
  $('ready').textContent = ready ? ready.status : 'Unknown';
  $('failure').textContent = st.failure ? 'failed: ' + (st.failure.step || '') + ' ' + (st.failure.error || '') : '';
  const left = st.failure && st.failure.leftovers || [];
  $('leftovers').replaceChildren(...(left.length ? [el('p', 'leftovers: ' + left.map((l) => l.kind + ' ' + l.id).join(', '))] : []));
  const a = st.approval;
  $('approval').hidden = !a;
  $('what').textContent = a ? a.what : '';
  $('why').textContent = a ? a.why : '';
  // Only those who may approve are shown the plan's hash: they get the buttons.
  $('approve').hidden = $('reject').hidden = !(a && a.hash);
  const acts = $('actions');
  acts.replaceChildren();
  for (const op of st.allowedOperations || []) {
    if (op === 'provision' || op === 'plan') continue;
    const b = el('button', op, { 'data-op': op });
    b.addEventListener('click', () => {
      const req = op === 'deprovision' ? { confirm: true } : {};
      act(ref, 'operations/' + op, { request: req }).catch(fail);
    });
    acts.append(b);
  }
}

async function decide(verb) {
  clearError();
  const ref = current.ref;
  const st = await api('GET', instPath(ref) + '/status');
  if (!st.approval || !st.approval.hash) throw new Error('nothing awaits your approval on ' + ref);
  await api('POST', instPath(ref) + '/approvals/' + verb, { plan: st.approval.hash });
  await refresh();
}

// follow reads the instance's log as Server-Sent Events through fetch (EventSource cannot send
// the token), from entry from on, until the stream ends; each entry is a line of the log.
async function follow(ref, from) {
  if (current.stream) current.stream.abort();
  const ctrl = new AbortController();
  current.stream = ctrl;
  try {
    const r = await fetch(instPath(ref) + '/events?follow=1&from=' + from, { headers: { Authorization: 'Bearer ' + token }, signal: ctrl.signal });
    if (!r.ok) { const p = await r.json().catch(() => ({})); throw new Error(p.detail || r.statusText); }
    const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += value;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const chunk = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let id = null; let event = 'message'; let data = '';
        for (const line of chunk.split('\n')) {
          if (line.startsWith('id: ')) id = Number(line.slice(4));
          else if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (event === 'end') { await refresh(); continue; }
        if (!data) continue;
        const ev = JSON.parse(data);
        if (id !== null) current.lastId = id;
        const li = el('li', ev.text, { 'data-kind': ev.kind });
        $('events').append(li);
        li.scrollIntoView({ block: 'nearest' });
        if (ev.kind === 'state' || ev.kind === 'result' || ev.kind === 'step') refresh().catch(fail);
      }
    }
  } catch (err) {
    if (err.name !== 'AbortError') fail(err);
  }
}

async function main() {
  cfg = await (await fetch('/ui/config.json')).json();
  $('signin').addEventListener('click', () => signIn().catch(fail));
  $('signout').addEventListener('click', signOut);
  $('create').addEventListener('submit', (ev) => create(ev).catch(fail));
  $('tenant').addEventListener('change', () => loadStacks().catch(fail));
  $('stack').addEventListener('change', () => loadForm().catch(fail));
  $('approve').addEventListener('click', () => decide('approve').catch(fail));
  $('reject').addEventListener('click', () => decide('reject').catch(fail));
  const q = new URLSearchParams(location.search);
  if (q.has('code') || q.has('error')) await finishSignIn(q);
  if (!token) { $('signin').hidden = false; return; }
  const me = await api('GET', '/v1/whoami');
  $('who').textContent = me.name + (me.groups && me.groups.length ? ' (' + me.groups.join(', ') + ')' : '');
  $('who').dataset.name = me.name;
  $('signout').hidden = false;
  $('app').hidden = false;
  const tenant = (me.groups || []).map((g) => g.match(/^tenant:(.+)$/)).find(Boolean);
  if (tenant) $('tenant').value = tenant[1];
  await loadInstances();
  await loadStacks();
}

main().catch((err) => { fail(err); if (!token) $('signin').hidden = false; });

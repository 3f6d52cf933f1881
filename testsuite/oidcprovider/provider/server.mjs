// A real OpenID Connect provider (npm oidc-provider, a certified OP) for slipway's tests.
// testsuite/oidcprovider starts it: `node server.mjs CONFIG.json READY.json`. The config names
// the users (with passwords), clients, token lifetimes and permissions; a fresh RSA key signs
// every instance's tokens. Once listening it writes READY.json = {"issuer": ...}.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

import Provider from 'oidc-provider';

const [configPath, readyPath] = process.argv.slice(2);
const config = JSON.parse(readFileSync(configPath, 'utf8'));
const users = new Map(config.users.map((u) => [u.username, u]));
const resource = config.resource; // the audience of JWT access tokens (the Temporal frontend)

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' };

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title, body) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${body}</body></html>`;

async function readForm(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 64 * 1024) throw new Error('form too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const server = createServer();
server.listen(config.port || 0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    clients: config.clients,
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name'],
      email: ['email', 'email_verified'],
      groups: ['groups'],
      permissions: ['permissions'],
    },
    // Scope claims go into the ID token too: slipway verifies the ID token, not userinfo.
    conformIdTokenClaims: false,
    async findAccount(ctx, sub) {
      const user = [...users.values()].find((u) => u.sub === sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        async claims() {
          return {
            sub,
            preferred_username: user.username,
            name: user.username,
            email: user.email,
            email_verified: true,
            groups: user.groups,
            permissions: config.personPermissions,
          };
        },
      };
    },
    features: {
      devInteractions: { enabled: false },
      deviceFlow: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // Every access token is a JWT for the one resource, so Temporal's JWT authorizer can read it.
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'temporal',
          audience: resource,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    async extraTokenClaims(ctx, token) {
      if (token.kind === 'ClientCredentials') {
        return { permissions: config.servicePermissions[token.clientId] ?? [] };
      }
      const user = [...users.values()].find((u) => u.sub === token.accountId);
      if (!user) return undefined;
      return { permissions: config.personPermissions, groups: user.groups, preferred_username: user.username };
    },
    // A refresh token for every client allowed the grant, without offline_access consent prompts.
    issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      IdToken: config.ttl.idToken,
      AccessToken: config.ttl.accessToken,
      ClientCredentials: config.ttl.accessToken,
      RefreshToken: config.ttl.refreshToken,
      AuthorizationCode: 60,
      DeviceCode: 600,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
    },
    interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    // A public client's page on loopback (slipway server's /ui/, any port) may call the token
    // endpoint, as a production provider allows the page's configured web origin.
    clientBasedCORS: (ctx, origin, client) => client.clientAuthMethod === 'none' && /^http:\/\/127\.0\.0\.1(:\d+)?$/.test(origin),
    renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = page('Error', `<p id="error">${escape(out.error)}: ${escape(out.error_description ?? '')}</p>`);
    },
  });
  provider.on('server_error', (ctx, err) => console.error('server_error', err));

  // The login (username and password) and consent pages: the real interactions, not dev ones.
  provider.use(async (ctx, next) => {
    const m = ctx.path.match(/^\/interaction\/([\w-]+)(?:\/(login|confirm|abort))?$/);
    if (!m) return next();
    ctx.set('cache-control', 'no-store');
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const { uid, prompt, params, session } = details;
    const finish = async (result, merge) => {
      ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: merge }));
    };
    const action = m[2];
    if (ctx.method === 'GET' && !action) {
      ctx.type = 'html';
      if (prompt.name === 'login') {
        ctx.body = loginPage(uid);
      } else {
        ctx.body = page('Authorize', `<p>${escape(params.client_id)} asks for: ${escape(params.scope)}</p>
<form id="consent" method="post" action="/interaction/${uid}/confirm"><button type="submit">Allow</button></form>
<a href="/interaction/${uid}/abort">Cancel</a>`);
      }
      return undefined;
    }
    if (action === 'abort') {
      return finish({ error: 'access_denied', error_description: 'the user cancelled the sign-in' }, false);
    }
    if (ctx.method !== 'POST') ctx.throw(405);
    const form = await readForm(ctx.req);
    if (action === 'login' && prompt.name === 'login') {
      const user = users.get(form.get('login') ?? '');
      if (!user || user.password !== form.get('password')) {
        ctx.status = 401;
        ctx.type = 'html';
        ctx.body = loginPage(uid, 'Invalid username or password.');
        return undefined;
      }
      return finish({ login: { accountId: user.sub } }, false);
    }
    if (action === 'confirm' && prompt.name === 'consent') {
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const missing = prompt.details;
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scope] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scope.join(' '));
      }
      return finish({ consent: { grantId: await grant.save() } }, true);
    }
    ctx.throw(400, `unexpected ${action} during the ${prompt.name} prompt`);
    return undefined;
  });

  server.on('request', provider.callback());
  // Written last and renamed into place, so the harness never reads half of it.
  writeFileSync(`${readyPath}.tmp`, JSON.stringify({ issuer, kid: jwk.kid }));
  renameSync(`${readyPath}.tmp`, readyPath);
  console.log(`oidc-provider listening at ${issuer}`);
});

function loginPage(uid, error) {
  return page('Sign-in', `${error ? `<p id="error">${escape(error)}</p>` : ''}
<form id="login" method="post" action="/interaction/${uid}/login">
<input type="text" name="login" placeholder="Username" autofocus>
<input type="password" name="password" placeholder="Password">
<button type="submit">Sign in</button>
</form>
<a href="/interaction/${uid}/abort">Cancel</a>`);
}

// The harness stops the whole process group; exit promptly on SIGTERM.
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));

// A real OpenID Provider for the end-to-end tests: panva's certified `oidc-provider` from npm,
// with its development login (any name, any password) and one confidential client, Ferry.
// Users' groups (`<org>:<role>`) come in the ID token's `groups` claim.
//
//   OIDC_PORT=… FERRY_URL=http://127.0.0.1:… node end2end/oidc/provider.mjs
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT ?? 4400);
const ferry = process.env.FERRY_URL ?? 'http://127.0.0.1:3000';
export const CLIENT = { id: 'ferry', secret: process.env.OIDC_CLIENT_SECRET ?? 'e2e-client-secret' };

// Who belongs where: the end-to-end team's approver signs in here; eve's provider claims she
// administers every organisation, which Ferry ignores unless told to trust it.
const GROUPS = { olga: ['team:approver'], eve: ['*:admin', 'team:viewer'] };

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [{
    client_id: CLIENT.id,
    client_secret: CLIENT.secret,
    redirect_uris: [`${ferry}/auth/oidc/callback`],
    grant_types: ['authorization_code'],
    response_types: ['code'],
  }],
  pkce: { required: () => true },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'name', 'groups'] },
  // The requested claims go into the ID token itself (Ferry reads no userinfo).
  conformIdTokenClaims: false,
  findAccount: async (_ctx, sub) => ({
    accountId: sub,
    claims: async () => ({ sub, email: `${sub}@example.test`, email_verified: true, preferred_username: sub, name: sub, groups: GROUPS[sub] ?? [] }),
  }),
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ['end-to-end-tests-only'] },
});
provider.listen(port, '127.0.0.1', () => console.log(`oidc-provider listening on http://127.0.0.1:${port}`));

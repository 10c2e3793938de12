/**
 * Who a request's Authorization header names: a token of the auth file, a JWT of its OIDC provider, or
 * anonymous. The auth file can be read again while the server runs (`reload`, on SIGHUP: server.ts), so tokens
 * are rotated and ACLs of the file changed without a restart; a file that cannot be read or is invalid is
 * refused whole, and what was in force stays.
 */
import type { AclService } from './acls.js';
import { anonymousReadOnly, loadAuthFile, tokenDigest, type AuthConfig } from './auth-file.js';
import { AuthenticationError } from './errors.js';
import { ANONYMOUS, type Identity } from './identities.js';
import { type OidcConfig, looksLikeJwt, oidcVerifier } from './oidc.js';
import type { Logger } from './index.js';

type JwtVerifier = ReturnType<typeof oidcVerifier>;

export class Authenticator {
  private verifyJwt: JwtVerifier | null;

  private constructor(
    private readonly authFile: string | null,
    private auth: AuthConfig,
    private readonly logger: Logger,
  ) {
    this.verifyJwt = auth.oidc ? this.verifierOf(auth.oidc) : null;
  }

  /** Reads the auth file (throws AuthFileError when it is unusable) and says what it holds. */
  static load(authFile: string | null, logger: Logger): Authenticator {
    const authenticator = new Authenticator(authFile, authFile ? loadAuthFile(authFile) : anonymousReadOnly(), logger);
    if (authFile) authenticator.describe('');
    else logger.warn('no auth file (--auth-file / AUTH_FILE): anonymous is read-only (resources/read on /) and every write is refused');
    return authenticator;
  }

  /** The grants the auth file makes on ACL paths, which AclService adds to the stored ones. */
  get fileAcls(): AuthConfig['acls'] {
    return this.auth.acls;
  }

  /**
   * Reads the auth file again and puts its tokens, OIDC section and ACLs in force for the requests that start from
   * now on. When the file cannot be used, an error line says why and nothing changes. A server started without an
   * auth file has none to read (stored grants do not apply to it), which a line says.
   */
  reload(acls: AclService): void {
    if (this.authFile === null) {
      this.logger.warn('no auth file to read again: the server was started without --auth-file (AUTH_FILE); anonymous stays read-only');
      return;
    }
    let next: AuthConfig;
    try {
      next = loadAuthFile(this.authFile);
    } catch (error) {
      this.logger.error({ reason: (error as Error).message }, 'auth file not read again: the tokens and ACLs in force are kept');
      return;
    }
    this.auth = next;
    this.verifyJwt = next.oidc ? this.verifierOf(next.oidc) : null;
    acls.replaceFileGrants(next.acls);
    this.describe(' read again');
  }

  /** The OIDC section's verifier; a groups claim it cannot read is said once, until the auth file is read again. */
  private verifierOf(oidc: OidcConfig): JwtVerifier {
    let told = false;
    return oidcVerifier(oidc, (claim, value) => {
      if (told) return;
      told = true;
      const shown = typeof value === 'string' ? `the text ${JSON.stringify(value.slice(0, 64))}` : `a JSON ${value === null ? 'null' : typeof value}`;
      this.logger.warn(`oidc: a token's "${claim}" claim is ${shown}, not a list of groups: its holder gets no group (said once until the auth file is read again)`);
    });
  }

  /** The caller behind an Authorization header; rejects with AuthenticationError (401) for a bad token. */
  async identify(authorization: string | undefined): Promise<Identity> {
    if (authorization === undefined || authorization.trim() === '') return ANONYMOUS;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new AuthenticationError('InvalidAccessTokenFormat', 'The Authorization header must be a bearer token.');
    const token = match[1]!;
    const identity = this.auth.tokens.get(tokenDigest(token));
    if (identity) return identity;
    const verifyJwt = this.verifyJwt;
    if (verifyJwt && looksLikeJwt(token)) {
      const verified = await verifyJwt(token);
      if ('refused' in verified) throw new AuthenticationError('InvalidAccessToken', `The provided token is invalid: ${verified.refused}.`);
      return verified;
    }
    throw new AuthenticationError('InvalidAccessToken', 'The provided token is invalid.');
  }

  /** What the file holds, said at start and at each reload. */
  private describe(when: string): void {
    const { tokens, acls, oidc } = this.auth;
    this.logger.info(`auth file ${this.authFile}${when}: ${tokens.size} token(s), ACLs on ${acls.size} path(s)`);
    if (oidc === null) return;
    this.logger.info(`OIDC tokens of ${oidc.issuer} accepted as realm ${oidc.realm} (${oidc.keys.keys.length} key(s))`);
    // Said every time, not only in the docs: a token the provider issued to another of its applications would be taken for one issued here.
    if (oidc.audience === null) {
      this.logger.warn(
        `OIDC: the auth file's "oidc" section sets no "audience", so tokens ${oidc.issuer} issued to any of its clients are accepted; set it to this server's client id`,
      );
    }
  }
}

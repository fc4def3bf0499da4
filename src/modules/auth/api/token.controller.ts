import { Body, Controller, Headers, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';
import { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { RateLimitState } from '../../../shared/infrastructure/rate-limit/rate-limit.service';
import { isStorableText } from '../../../shared/http/json-body';
import { HttpProblem, sendProblem } from '../../../shared/http/problem-details.filter';
import { TokenService } from '../application/token.service';
import { Public } from './auth.decorators';
import { TokenAttemptLimiter } from './token-attempt.limiter';

const MAX_CLIENT_ID_LENGTH = 64;
const MAX_SECRET_LENGTH = 256;

class TokenRequest {
  @ApiProperty({ enum: ['client_credentials'], example: 'client_credentials' }) grant_type: string;
  @ApiProperty({ required: false, description: 'Omit when sending the credentials as HTTP Basic.' }) client_id?: string;
  @ApiProperty({ required: false }) client_secret?: string;
  @ApiProperty({ required: false, example: 'invoices:read payments:write', description: 'Space-separated subset of the client\'s scopes.' })
  scope?: string;
}

class TokenResponse {
  @ApiProperty() access_token: string;
  @ApiProperty({ enum: ['Bearer'], example: 'Bearer' }) token_type: string;
  @ApiProperty({ example: 3600 }) expires_in: number;
  @ApiProperty({ example: 'invoices:read invoices:write' }) scope: string;
}

class OAuthErrorResponse {
  @ApiProperty({ enum: ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope'] }) error: string;
  @ApiProperty() error_description: string;
}

type OAuthError = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';

/** OAuth 2.0 client-credentials token endpoint (RFC 6749 §4.4, errors per §5.2). */
@ApiTags('auth')
@Controller('auth')
export class TokenController {
  constructor(
    private readonly tokens: TokenService,
    private readonly attempts: TokenAttemptLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('token')
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Get an access token (client credentials)', description: 'Credentials in the body (form or JSON) or as HTTP Basic, not both.' })
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({ type: TokenRequest })
  @ApiResponse({ status: 200, type: TokenResponse })
  @ApiResponse({ status: 400, type: OAuthErrorResponse, description: 'invalid_request, unsupported_grant_type or invalid_scope' })
  @ApiResponse({ status: 401, type: OAuthErrorResponse, description: 'invalid_client' })
  @ApiResponse({ status: 429, description: 'Too many failed attempts for this client from this address, or from this address; or too many tokens for this client' })
  async token(
    @Body() body: unknown,
    @Headers('authorization') authorization: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    void reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
    const params = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const field = (name: string): string | undefined | null => {
      const v = params[name];
      if (v === undefined) return undefined;
      return typeof v === 'string' ? v : null;
    };
    const tooMany = (state: RateLimitState, detail = 'Too many failed attempts; try again later.') =>
      sendProblem(reply, request, new HttpProblem('rate_limited', detail, { 'Retry-After': String(state.reset) }));
    const fail = (error: OAuthError, description: string, basic = false): void => {
      const status = error === 'invalid_client' ? 401 : 400;
      if (basic) void reply.header('WWW-Authenticate', 'Basic realm="receivables"');
      void reply.status(status).send({ error, error_description: description });
    };

    const grantType = field('grant_type');
    let clientId = field('client_id');
    let clientSecret = field('client_secret');
    const scope = field('scope');
    if ([grantType, clientId, clientSecret, scope].includes(null)) return fail('invalid_request', 'Parameters must be strings.');
    if (![grantType, clientId, clientSecret, scope].every((v) => typeof v !== 'string' || isStorableText(v))) {
      return fail('invalid_request', 'Parameters must not contain U+0000 or unpaired surrogates.');
    }
    if (grantType === undefined || grantType === '') return fail('invalid_request', 'grant_type is required.');
    if (grantType !== 'client_credentials') return fail('unsupported_grant_type', 'Only client_credentials is supported.');

    const basic = parseBasic(authorization);
    if (basic === 'malformed') return fail('invalid_client', 'The Basic credentials are malformed.', true);
    if (basic) {
      if (clientSecret !== undefined || (clientId !== undefined && clientId !== basic.id)) {
        return fail('invalid_request', 'Use one client authentication method: HTTP Basic or body parameters, not both.');
      }
      clientId = basic.id;
      clientSecret = basic.secret;
    }
    if (!clientId || !clientSecret) return fail('invalid_client', 'Client authentication is required.', !!basic);

    const begun = await this.attempts.begin(clientId, request.ip);
    if ('refused' in begun) return tooMany(begun.refused);
    // Ids are issued as cli_ + 26 characters and secrets as sk_ + 43: anything far off is a guess, answered without a lookup or a hash.
    const result =
      clientId.length <= MAX_CLIENT_ID_LENGTH && clientSecret.length <= MAX_SECRET_LENGTH
        ? await this.tokens.issue(clientId, clientSecret, scope ?? undefined)
        : ({ ok: false, error: 'invalid_client', description: 'Client authentication failed.' } as const);
    const overIssueLimit = await begun.attempt.settle(result.ok ? 'issued' : result.error === 'invalid_client' ? 'failed' : 'other');
    if (overIssueLimit) return tooMany(overIssueLimit, `More than ${this.config.tokenIssueLimit} tokens a minute for this client; reuse a token until it expires.`);
    if (!result.ok) return fail(result.error, result.description, !!basic);
    void reply.status(200).send({ access_token: result.accessToken, token_type: 'Bearer', expires_in: result.expiresIn, scope: result.scope });
  }
}

function parseBasic(header: string | undefined): { id: string; secret: string } | 'malformed' | null {
  if (!header || !/^Basic\s/i.test(header)) return null;
  const decoded = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return 'malformed';
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
    const id = decodeURIComponent(decoded.slice(0, colon));
    const secret = decodeURIComponent(decoded.slice(colon + 1));
    return isStorableText(id) && isStorableText(secret) ? { id, secret } : 'malformed';
  } catch {
    return 'malformed';
  }
}

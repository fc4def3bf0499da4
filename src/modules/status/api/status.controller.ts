import { Controller, Get, Inject, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { APP_CONFIG, AppConfig } from '../../../config/config';
import { Clock } from '../../../shared/domain/clock';
import { Public } from '../../../shared/http/public.decorator';
import { RateLimitState } from '../../../shared/infrastructure/rate-limit/rate-limit.service';

class RateLimitResponse {
  @ApiProperty({ example: 1000 }) limit: number;
  @ApiProperty({ example: 998 }) remaining: number;
  @ApiProperty({ example: 42, description: 'seconds until the window resets' }) reset: number;
  @ApiProperty({ example: 60 }) window_seconds: number;
}

class StatusResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: string;
  @ApiProperty({ example: '0.1.0' }) version: string;
  @ApiProperty({ example: '2026-11-22T10:00:00.000Z' }) time: string;
  @ApiProperty({ type: RateLimitResponse, description: "With a bearer token, that client's current state; otherwise the default policy." })
  rate_limit: RateLimitResponse;
}

@ApiTags('status')
@Controller('status')
export class StatusController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Service status and rate-limit state' })
  @ApiOkResponse({ type: StatusResponse })
  status(@Req() request: { rateLimit?: RateLimitState }): StatusResponse {
    const window = this.config.rateLimitWindowSeconds;
    const state = request.rateLimit ?? {
      limit: this.config.rateLimitRequests,
      remaining: this.config.rateLimitRequests,
      reset: window,
      windowSeconds: window,
    };
    return {
      status: 'ok',
      version: this.config.version,
      time: this.clock.now().toISOString(),
      rate_limit: { limit: state.limit, remaining: state.remaining, reset: state.reset, window_seconds: state.windowSeconds },
    };
  }
}

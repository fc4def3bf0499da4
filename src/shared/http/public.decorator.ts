import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'auth:public';

/** Opts a route out of the bearer-token requirement. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

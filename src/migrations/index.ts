import { Foundation1763800000000 } from './1763800000000-foundation';
import { CustomersInvoicing1763800100000 } from './1763800100000-customers-invoicing';

/** Every migration, in order. Listed explicitly so the build, the CLI and jest load the same classes. */
export const MIGRATIONS = [Foundation1763800000000, CustomersInvoicing1763800100000];

/** The PostgreSQL connection string the application runs on (embedded or DATABASE_URL). */
export const DATABASE_URL = Symbol('DATABASE_URL');

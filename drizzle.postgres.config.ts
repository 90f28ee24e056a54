import { defineConfig } from 'drizzle-kit';

// The PostgreSQL engine's migrations, generated from its schema (`npm run db:generate:pg`), never hand-edited.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/schema/postgres.ts',
  out: './drizzle/postgres',
});

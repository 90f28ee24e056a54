import { defineConfig } from 'drizzle-kit';

// The PostgreSQL engine's migrations, generated from its schema (`npm run db:generate:pg`), never hand-edited.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/postgres/schema/index.ts',
  out: './drizzle/postgres',
});

import 'reflect-metadata';
import { loadConfig } from './src/config';
import { postgresDataSource } from './src/db/database';

/** The data source the TypeORM migration CLI uses: `npx typeorm -d dist/ormconfig.js migration:run`. */
const config = loadConfig();
if (!config.DATABASE_URL) throw new Error('The migration CLI needs DATABASE_URL (the embedded database migrates itself at start)');
export default postgresDataSource(config);

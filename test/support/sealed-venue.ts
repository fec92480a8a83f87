import { seasonSeal } from '../../src/market-data/simulated/venue-seal';

/**
 * The known master secret of tests (SIM_SECRET): with it a test's venue is the same byte for byte on every run, as a
 * development service configured with a secret is. Never a production secret.
 */
export const TEST_SIM_SECRET = '7e57'.repeat(16);
export const TEST_MASTER = Buffer.from(TEST_SIM_SECRET, 'hex');

/** The live venue's seal under the test secret (a season's scope secret per market, as the service builds it). */
export const testSeal = () => seasonSeal(TEST_MASTER);

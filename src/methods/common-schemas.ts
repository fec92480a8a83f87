import { z } from 'zod';

/** Schemas shared by several methods' declarations. */
export const Email = z.email().max(254);

export const Balance = z.number().min(0).describe('Virtual dollars available, exact to 6 decimals.');

export const Dollars = z.number().describe('Virtual dollars, exact to 6 decimals.');

export const Probability = z.number().min(0).max(1).describe('Implied probability, 0..1.');

import { z } from 'zod';

/** Schemas shared by several methods' declarations. */
export const Email = z.email().max(254);

export const Balance = z.number().min(0).describe('Virtual dollars available, exact to 6 decimals.');

export const Dollars = z.number().describe('Virtual dollars, exact to 6 decimals.');

export const Probability = z.number().min(0).max(1).describe('Implied probability, 0..1.');

export const DisplayName = z
  .string()
  .refine((s) => s.trim().length >= 2 && s.trim().length <= 20, 'must be 2 to 20 characters')
  .describe('Public display name, 2 to 20 characters.');

import { z } from 'zod';
import { ERROR_CODES } from './app-error';

/** The error body every transport answers with (REST body, MCP error structuredContent, JSON-RPC `data`). */
export const ErrorBodySchema = z
  .object({
    error: z.string().describe('What went wrong, for a human or an LLM reader.'),
    code: z.enum(ERROR_CODES as [string, ...string[]]).describe('Stable machine-readable error code.'),
    hint: z.string().optional().describe('What to do about it.'),
    docs: z.string().optional().describe('Link to documentation.'),
    details: z.unknown().optional().describe('Structured details, e.g. the validation issues (path, message, code).'),
    requestId: z.string().optional().describe('On server errors (5xx): quote it when reporting the problem.'),
  })
  .describe('Error');

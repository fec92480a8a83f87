import { z } from 'zod';
import { ERROR_CODES } from './app-error';

/** One problem with the input: what VALIDATION_ERROR's `details` lists. */
export const ErrorDetailSchema = z
  .object({
    path: z.string().describe('Dotted path of the input field at fault (empty for the input as a whole), e.g. "amount" or "notificationIds.0".'),
    message: z.string().describe('What is wrong with it.'),
    code: z.string().describe('Kind of problem, e.g. invalid_type, too_small, too_big, invalid_value, custom.'),
  })
  .describe('A validation issue.');

/** The error body every transport answers with (REST body, MCP error structuredContent, JSON-RPC `data`). */
export const ErrorBodySchema = z
  .object({
    error: z.string().describe('What went wrong, for a human or an LLM reader.'),
    code: z.enum(ERROR_CODES as [string, ...string[]]).describe('Stable machine-readable error code.'),
    hint: z.string().optional().describe('What to do about it.'),
    docs: z.string().optional().describe('Link to documentation.'),
    details: z.array(ErrorDetailSchema).optional().describe('On VALIDATION_ERROR: each problem with the input (path, message, code).'),
    retryAfterSeconds: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'Seconds to wait before sending the same request again (RATE_LIMITED; SERVICE_UNAVAILABLE; CONFLICT while a request with the same ' +
          'Idempotency-Key runs). REST also says it in the Retry-After header; a call inside a JSON-RPC batch or an MCP tool call has only this.',
      ),
    requestId: z.string().optional().describe('On server errors (5xx): quote it when reporting the problem.'),
  })
  .describe('Error');

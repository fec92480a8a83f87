import type { Request, Response, NextFunction } from 'express';
import { AppError, toAppError } from '../errors/app-error';
import type { Logger } from '../logger';
import { requestIdOf } from '../transports/http-call';
import { methodDocsUrl } from '../documents/service-info';
import type { AnyMethod } from '../registry/method';

/** Turns body-parser failures into the service's own errors. */
export function fromBodyParser(err: unknown): AppError | null {
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed')
    return new AppError('VALIDATION_ERROR', 'Malformed JSON body.', { hint: 'Send a valid JSON object with Content-Type: application/json.' });
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', 'Request body is larger than 100 kB.');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return new AppError('VALIDATION_ERROR', 'Unsupported body encoding.');
  return null;
}

/** The last express error handler: JSON for everything, no stack or SQL text, 5xx logged with the request id. */
export function errorHandler(log: Logger, origin: (req: Request) => string) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const appErr = fromBodyParser(err) ?? toAppError(err);
    const requestId = requestIdOf(req, res);
    if (appErr.status >= 500) {
      log.error('request failed', { requestId, method: req.method, path: req.path, code: appErr.code, err: describe(err) });
    }
    if (res.headersSent) return;
    for (const [k, v] of Object.entries(appErr.headers ?? {})) res.setHeader(k, v);
    const body = appErr.toBody(requestId);
    // A method's error links its section (the REST route sets res.locals.method); any other /api/ error, the whole reference.
    const method = res.locals.method as AnyMethod | undefined;
    if (!body.docs && method) body.docs = methodDocsUrl(origin(req), method);
    else if (!body.docs && req.path.startsWith('/api/')) body.docs = `${origin(req)}/llms-full.txt`;
    res.status(appErr.status).json(body);
  };
}

function describe(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { value: String(err) };
}

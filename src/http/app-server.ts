import http, { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

type RequestClass = typeof IncomingMessage;
type ResponseClass = typeof ServerResponse;
type Initialiser = (this: object, ...args: unknown[]) => void;

/** Node's IncomingMessage and ServerResponse are plain constructor functions (not classes) as of Node 20–24. */
const isPlainFunction = (f: unknown): boolean => typeof f === 'function' && !/^class[\s{]/.test(Function.prototype.toString.call(f));

/**
 * A constructor whose instances are `Base` objects born with `proto` as their prototype. Built the
 * old way (a function with that prototype, calling Base on `this`): V8 gives all of them one map.
 * Object.setPrototypeOf on a fresh object, and even Reflect.construct with a new.target, leave each
 * object on a map of its own that the young-generation collector keeps alive (measured: the same
 * retention either way). Should Node ever make Base a class (which cannot be called on `this`), Base
 * itself is used and express re-parents its objects as it does under app.listen.
 */
function bornWith<C extends RequestClass | ResponseClass>(Base: C, proto: object): C {
  if (!isPlainFunction(Base)) return Base;
  const Born = function (this: object, ...args: unknown[]) {
    (Base as unknown as Initialiser).apply(this, args);
  };
  Born.prototype = proto;
  return Born as unknown as C;
}

/**
 * Request and response classes whose instances are born with the express app's own prototypes
 * (app.request, app.response). Express re-parents every plain request and response with
 * Object.setPrototypeOf; on V8 the objects so re-parented outlive the young-generation collections
 * that should free them, until the next full collection. Under load every scavenge then copies
 * megabytes of finished requests (3–15 ms pauses, most of the service's p99); born with the right
 * prototype, express's setPrototypeOf changes nothing and a scavenge takes a fraction of a millisecond
 * (npm run bench:http-server measures both).
 */
export function appRequestClasses(app: Express): { IncomingMessage: RequestClass; ServerResponse: ResponseClass } {
  return { IncomingMessage: bornWith(IncomingMessage, app.request), ServerResponse: bornWith(ServerResponse, app.response) };
}

/** An http.Server for the app, with appRequestClasses (what app.listen would build, minus the re-parenting). */
export function createAppServer(app: Express): http.Server {
  return http.createServer(appRequestClasses(app), app);
}

import type { Hono } from 'hono';
import type { Service } from './service.ts';

type Registrar = (app: Hono, service: Omit<Service, 'app' | 'listen' | 'close'>) => void;

/** Route modules beyond the JSON API (images, MCP), wired in one place. */
export const defaultRoutes: readonly Registrar[] = [];

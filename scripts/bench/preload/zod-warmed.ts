import * as zod from 'zod';

/**
 * Variant (a) of scripts/bench/context-cost.ts, not for keel's bundles: zod as a module shared by
 * every goal of a reusable V8 context. zod's package is marked side-effect free, so the SDK's own
 * `require('zod')` preload is dropped by webpack (`0;` in the bundle); a module that uses the
 * namespace keeps it. The SDK deep-freezes shared modules after preloading, and this zod installs
 * its default locale and lazily-derived members on its prototypes at the first construction of
 * each schema type: unwarmed, the first z.lazy a goal builds throws "Cannot add property
 * localeError, object is not extensible". So every schema type keel builds is built and used
 * here first, which is why keel does not adopt it (a type not warmed here fails a goal later).
 */
const z = zod.z;
const warm = z.object({
  a: z.string().min(1).max(3).describe('a'),
  b: z.number().int().min(0).max(10).optional(),
  c: z.array(z.boolean()).nullable(),
  d: z.enum(['x', 'y']).default('x'),
  e: z.literal('l'),
  f: z.record(z.string(), z.unknown()),
  g: z.lazy(() => z.string()),
  h: z.discriminatedUnion('k', [z.object({ k: z.literal('1') }), z.object({ k: z.literal('2') })]),
  i: z.union([z.string(), z.number()]),
  j: z.looseObject({ x: z.string() }),
});
warm.safeParse({ a: 'ab', c: [true], e: 'l', f: {}, g: 's', h: { k: '1' }, i: 1, j: { x: 'y', z: 1 } });
warm.safeParse({});
z.toJSONSchema(warm, { io: 'input' });

export const sharedZod = zod;

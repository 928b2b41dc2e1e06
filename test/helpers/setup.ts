import { vi } from 'vitest';
import { loadShedder } from '../../src/load-shed.ts';

// In a test file the service under test shares its event loop with the test itself (and, on a
// loaded CI machine, with little CPU), so the utilization shedder measures the test's work and
// refuses requests the test expects answered. It never sheds in-process here; tests of shedding
// mock `overloaded` themselves (test/unit/image-routes.test.ts), and services run as child processes
// keep the real one.
vi.spyOn(loadShedder, 'overloaded').mockReturnValue(false);

// calico's images in the CNI agent catalogue (catalogue.ts; program.ts says what an entry holds). Issue 16 fills it.
import type { ImageSpec } from './program.js';

export const CALICO_IMAGES: ImageSpec[] = [];

// Types of the ES module entry point: the same declarations as the CommonJS entry.
export * from './index.js';
import * as ferrite from './index.js';
export default ferrite;

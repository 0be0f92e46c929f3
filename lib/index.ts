export { version } from './version';

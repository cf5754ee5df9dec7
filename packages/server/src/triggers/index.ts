// The organization's triggers (B), each with revisions of its own; compiled through configurations/.
export { checkTrigger, installTrigger, type TriggerCheck, type TriggerInstall } from './service.js';
export { TriggerRepository, type InstalledTrigger } from './sql.js';
export { triggerHandlers } from './routes.js';

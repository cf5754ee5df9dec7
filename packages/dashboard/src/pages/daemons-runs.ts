import { h } from 'preact';
import type {
  CancelRunPageProps,
  DaemonsPageProps,
  RetireDaemonPageProps,
  RunPageProps,
  RunsPageProps,
} from './daemons-runs-props.js';
import { DaemonsPage, RetireDaemonPage } from './daemons.js';
import { renderPage } from './render.js';
import { RunsPage } from './runs.js';
import { CancelRunPage, RunPage } from './run.js';

// The daemons and runs pages, as pages/index.ts gives the others: plain data in, HTML out.
export type * from './daemons-runs-props.js';

export const daemonsPage = (props: DaemonsPageProps): string => renderPage(h(DaemonsPage, props));
export const retireDaemonPage = (props: RetireDaemonPageProps): string => renderPage(h(RetireDaemonPage, props));
export const runsPage = (props: RunsPageProps): string => renderPage(h(RunsPage, props));
export const runPage = (props: RunPageProps): string => renderPage(h(RunPage, props));
export const cancelRunPage = (props: CancelRunPageProps): string => renderPage(h(CancelRunPage, props));

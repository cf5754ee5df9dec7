import { h } from 'preact';
import { DeviceCodePage, DeviceConfirmPage } from './device.js';
import type { DeviceCodePageProps, DeviceConfirmPageProps } from './device-props.js';
import { renderPage } from './render.js';

// The verification page of `hub login`, as pages/index.ts gives the others: plain data in, HTML out.
export type * from './device-props.js';

export const deviceCodePage = (props: DeviceCodePageProps): string => renderPage(h(DeviceCodePage, props));
export const deviceConfirmPage = (props: DeviceConfirmPageProps): string => renderPage(h(DeviceConfirmPage, props));

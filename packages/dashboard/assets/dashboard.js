// Progressive enhancement only: every form works without this script.
// A button with data-copy="ID" copies the value of the field #ID and says so.
document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('button[data-copy]')) {
    const id = button.getAttribute('data-copy');
    const field = document.getElementById(id);
    const status = document.querySelector(`[data-copy-status="${id}"]`);
    if (!field || !navigator.clipboard) continue;
    button.hidden = false;
    field.addEventListener('focus', () => field.select());
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(field.value);
        if (status) status.textContent = 'Copied.';
      } catch {
        field.select();
        if (status) status.textContent = 'Copying was not allowed: the key is selected, copy it with the keyboard.';
      }
    });
  }
});

// The run page: each execution that runs follows its output stream (the same events as the API's,
// for `hub logs --follow`), from the last chunk the page was sent with; EventSource resumes with
// Last-Event-ID by itself. Text is added as text, without the terminal's control sequences, and the
// view keeps to the bottom unless the reader scrolled up. Once an execution ends, the page is
// loaded again for the run's new status.
const ESCAPES = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[@-Z\\-_])/g;
const CONTROLS = /\r(?=\n)|[\u0000-\u0008\u000b-\u001f\u007f]/g;
const plainText = (text) => text.replace(ESCAPES, '').replace(CONTROLS, '');

document.addEventListener('DOMContentLoaded', () => {
  if (typeof EventSource !== 'function') return;
  for (const pre of document.querySelectorAll('pre[data-output-stream]')) {
    const url = new URL(pre.getAttribute('data-output-stream'), location.href);
    url.searchParams.set('after', pre.getAttribute('data-after') || '-1');
    const state = pre.closest('section')?.querySelector('[data-output-state]');
    const source = new EventSource(url);
    const atBottom = () => pre.scrollHeight - pre.scrollTop - pre.clientHeight < 24;
    const add = (node) => {
      const follow = atBottom();
      pre.querySelector('.output-empty')?.remove();
      pre.append(node);
      if (follow) pre.scrollTop = pre.scrollHeight;
    };
    const marker = (text) => {
      const span = document.createElement('span');
      span.className = 'output-marker';
      span.textContent = text;
      return span;
    };
    source.addEventListener('output', (event) => add(document.createTextNode(plainText(JSON.parse(event.data).text))));
    source.addEventListener('cut', (event) =>
      add(
        marker(
          `[… ${JSON.parse(event.data).bytes} bytes of output cut here: the hub keeps the first and the last 5 MiB …]`,
        ),
      ),
    );
    source.addEventListener('end', (event) => {
      source.close();
      const end = JSON.parse(event.data);
      if (end.reason !== undefined) {
        if (state) state.textContent = ' · the live output stopped: sign in again and reload the page';
        return;
      }
      if (state) state.textContent = ` · ended: ${String(end.status).replace('_', ' ')}`;
      // The run's status, its other steps and the Cancel button change with it: the page again.
      setTimeout(() => location.reload(), 1000);
    });
    source.addEventListener('error', () => {
      // Closed for good (signed out, no such execution): say so; otherwise EventSource reconnects.
      if (source.readyState === EventSource.CLOSED && state)
        state.textContent = ' · the live output stopped: reload the page';
    });
  }
});

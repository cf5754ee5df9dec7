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

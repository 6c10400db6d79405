/**
 * The inbox's one stylesheet and one script, served from memory (no bundler, no files to find).
 * The script only fills a token from the login link's fragment (a fragment never reaches a server
 * or a log) and appends a goal's live events, as text, never as HTML.
 */

export const INBOX_CSS = `
body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; }
header { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem; background: #f2f2f5; }
header a { font-weight: 600; color: inherit; text-decoration: none; }
.who { margin: 0 0 0 auto; }
main { max-width: 62rem; margin: 0 auto; padding: 1rem; }
.call { border: 1px solid #d0d0d7; border-radius: 6px; padding: .6rem 1rem; margin: 1rem 0; }
.call h2 { font-size: 1.05rem; margin: .2rem 0; }
.whole-call, .turns { background: #f7f7f9; padding: .5rem; overflow-x: auto; white-space: pre-wrap; }
.diff pre { background: #f7f7f9; padding: .5rem; overflow-x: auto; font-size: .85rem; }
.diff .add { background: #e6f4ea; } .diff .del { background: #fce8e6; }
.diff .hunk { color: #6b6b73; } .diff .file { font-weight: 600; }
.tier { font-size: .8rem; padding: 0 .4rem; border-radius: 3px; background: #e4e4ea; }
.tier.irreversible { background: #fbd5d5; }
.problem { color: #a40000; }
.done { color: #0b6b1d; }
.note { color: #6b6b73; }
form.decide label, form.bulk label { display: block; margin: .3rem 0; }
form.inline { display: inline; }
button.approve { background: #0b6b1d; color: white; }
button.deny { background: #a40000; color: white; }
textarea { width: 100%; font-family: monospace; }
`;

export const INBOX_JS = `
(function () {
  var login = document.getElementById('login');
  var match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (login && match) {
    history.replaceState(null, '', location.pathname);
    login.elements.token.value = decodeURIComponent(match[1]);
    login.submit();
  }
  var list = document.getElementById('events');
  if (list && window.EventSource) {
    var goal = list.getAttribute('data-goal');
    var after = list.getAttribute('data-after') || '0';
    var source = new EventSource('/goals/' + encodeURIComponent(goal) + '/events?after=' + encodeURIComponent(after));
    source.addEventListener('goal', function (message) {
      var event = JSON.parse(message.data);
      if (list.querySelector('[data-offset="' + event.offset + '"]')) return;
      var item = document.createElement('li');
      item.setAttribute('data-offset', String(event.offset));
      var time = document.createElement('time');
      time.textContent = event.at;
      var kind = document.createElement('code');
      kind.textContent = event.kind;
      item.append(time, ' ', kind, ' ', event.summary);
      list.appendChild(item);
    });
    // The goal ended: no reconnecting.
    source.addEventListener('end', function () {
      source.close();
    });
  }
})();
`;

"""The student page served at `/`: paste the token once (kept in the browser's localStorage),
choose the assignment, upload, watch the status, read the feedback. Both languages (`?lang=zh`),
one classic script, no external resource; labelled controls, a live region for the status,
text contrast above 7:1."""

from __future__ import annotations

import html
import json

TEXT = {
    "en": {
        "title": "Submit an exercise",
        "intro": "Your grade comes back from the course's grader within seconds.",
        "token": "Your token (from your instructor; kept in this browser only)",
        "save": "Remember token",
        "forget": "Forget token",
        "assignment": "Assignment",
        "files": "Files (.py or .ipynb)",
        "submit": "Submit",
        "status": "Status",
        "feedback": "Feedback",
        "history": "Your submissions",
        "load": "Show my submissions",
        "other": "中文",
        "other_lang": "zh",
        "saved": "Token saved.",
        "no_token": "Paste your token first.",
        "sending": "Sending…",
        "queued": "Queued",
        "grading": "Grading…",
        "done": "Graded",
        "failed": "Could not be graded",
        "score": "Score",
        "passed": "passed",
        "failed_check": "failed",
        "hidden": "hidden check",
        "late": "Raw score {r}; late by {s} s; late penalty {p}",
    },
    "zh": {
        "title": "提交练习",
        "intro": "课程的评分程序会在几秒内返回你的成绩。",
        "token": "你的令牌（由教师发放；只保存在本浏览器中）",
        "save": "记住令牌",
        "forget": "忘记令牌",
        "assignment": "作业",
        "files": "文件（.py 或 .ipynb）",
        "submit": "提交",
        "status": "状态",
        "feedback": "反馈",
        "history": "你的提交",
        "load": "显示我的提交",
        "other": "English",
        "other_lang": "en",
        "saved": "令牌已保存。",
        "no_token": "请先粘贴你的令牌。",
        "sending": "正在发送…",
        "queued": "排队中",
        "grading": "评分中…",
        "done": "已评分",
        "failed": "无法评分",
        "score": "得分",
        "passed": "通过",
        "failed_check": "未通过",
        "hidden": "隐藏检查",
        "late": "原始得分 {r}；迟交 {s} 秒；迟交扣分 {p}",
    },
}

_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans",sans-serif;max-width:46rem;margin:2rem auto;
padding:0 1rem;color:#111;background:#fff;line-height:1.5}
label{display:block;font-weight:600;margin-top:1rem}
input,select,button{font:inherit;margin-top:.25rem}
input[type=password],select{width:100%;padding:.4rem;border:1px solid #555;border-radius:4px}
button{padding:.4rem 1rem;border:1px solid #003a70;background:#003a70;color:#fff;border-radius:4px;cursor:pointer}
button.secondary{background:#fff;color:#003a70}
button:focus-visible,input:focus-visible,select:focus-visible,a:focus-visible{outline:3px solid #b35c00;outline-offset:2px}
a{color:#003a70}
.passed{color:#0a5a1c}.failed{color:#9b1c1c}
pre{white-space:pre-wrap;background:#f4f4f4;padding:.5rem;border-radius:4px;color:#111}
#status{font-weight:600}
"""

_SCRIPT = """
(function(){
var T = JSON.parse(document.getElementById('texts').textContent);
var LANG = document.documentElement.lang;
var KEY = 'coursegen-service-token';
var tokenInput = document.getElementById('token');
var statusBox = document.getElementById('status');
var feedback = document.getElementById('feedback');
tokenInput.value = localStorage.getItem(KEY) || '';
function headers(){ return {'Authorization': 'Bearer ' + tokenInput.value.trim(), 'Accept-Language': LANG}; }
function say(text){ statusBox.textContent = text; }
function el(tag, text, cls){ var e = document.createElement(tag); if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls; return e; }
document.getElementById('save').addEventListener('click', function(){
  localStorage.setItem(KEY, tokenInput.value.trim()); say(T.saved); loadAssignments(); });
document.getElementById('forget').addEventListener('click', function(){
  localStorage.removeItem(KEY); tokenInput.value = ''; });
function loadAssignments(){
  if (!tokenInput.value.trim()) return;
  fetch('api/v1/assignments?lang=' + LANG, {headers: headers()}).then(function(r){ return r.json(); })
  .then(function(data){
    if (!data.assignments) { say(data.reason || ''); return; }
    var select = document.getElementById('assignment'); select.textContent = '';
    data.assignments.forEach(function(a){ var o = el('option', a.id + ': ' + a.title); o.value = a.id;
      select.appendChild(o); });
  });
}
function show(sub){
  say(T[sub.status] || sub.status);
  feedback.textContent = '';
  if (sub.status !== 'done' && sub.status !== 'failed') return;
  if (sub.reason) feedback.appendChild(el('p', sub.reason));
  if (sub.score !== null && sub.score !== undefined)
    feedback.appendChild(el('p', T.score + ': ' + sub.score + ' / ' + sub.max_score));
  if (sub.lateness) feedback.appendChild(el('p', T.late.replace('{r}', sub.raw_score).replace('{s}', Math.round(sub.lateness)).replace('{p}', sub.penalty)));
  (sub.problems || []).forEach(function(p){ feedback.appendChild(el('pre', p)); });
  var list = el('ul');
  (sub.tests || []).forEach(function(t){
    var item = el('li');
    var head = el('span', t.name + ' (' + t.score + '/' + t.max_score + '): ' +
      (t.status === 'passed' ? T.passed : T.failed_check) + (t.hidden ? ' [' + T.hidden + ']' : ''),
      t.status === 'passed' ? 'passed' : 'failed');
    item.appendChild(head);
    if (t.output) item.appendChild(el('pre', t.output));
    list.appendChild(item);
  });
  feedback.appendChild(list);
  feedback.focus();
}
function watch(id){
  // wait=20: the server answers as soon as the grade is there
  fetch('api/v1/submissions/' + encodeURIComponent(id) + '?wait=20&lang=' + LANG, {headers: headers()})
  .then(function(r){ return r.json(); }).then(function(sub){
    if (sub.error) { say(sub.reason); return; }
    show(sub);
    if (sub.status === 'queued' || sub.status === 'grading') setTimeout(function(){ watch(id); }, 100);
  });
}
document.getElementById('form').addEventListener('submit', function(event){
  event.preventDefault();
  if (!tokenInput.value.trim()) { say(T.no_token); return; }
  var data = new FormData();
  data.append('assignment', document.getElementById('assignment').value);
  var files = document.getElementById('files').files;
  for (var i = 0; i < files.length; i++) data.append('file', files[i]);
  say(T.sending);
  fetch('api/v1/submissions?lang=' + LANG, {method: 'POST', headers: headers(), body: data})
  .then(function(r){ return r.json(); }).then(function(answer){
    if (answer.error) { say(answer.reason); return; }
    say(T.queued); watch(answer.id);
  });
});
document.getElementById('load').addEventListener('click', function(){
  var assignment = document.getElementById('assignment').value;
  fetch('api/v1/submissions?assignment=' + encodeURIComponent(assignment), {headers: headers()})
  .then(function(r){ return r.json(); }).then(function(data){
    var list = document.getElementById('history'); list.textContent = '';
    (data.submissions || []).forEach(function(s){
      var item = el('li'); var link = el('a', s.submitted_at + ' — ' + (T[s.status] || s.status) +
        (s.score !== null ? ' (' + s.score + '/' + s.max_score + ')' : ''));
      link.href = '#'; link.addEventListener('click', function(e){ e.preventDefault(); watch(s.id); });
      item.appendChild(link); list.appendChild(item);
    });
  });
});
loadAssignments();
})();
"""


def student_page(lang: str, course_title: str) -> str:
    t = TEXT[lang]
    e = html.escape
    texts = json.dumps(t, ensure_ascii=False).replace("<", "\\u003c")
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{e(t["title"])} · {e(course_title)}</title>
<style>{_STYLE}</style>
</head>
<body>
<header>
<p><a href="?lang={t["other_lang"]}" lang="{t["other_lang"]}">{e(t["other"])}</a></p>
</header>
<main>
<h1>{e(t["title"])}</h1>
<p>{e(course_title)}. {e(t["intro"])}</p>
<form id="form">
<label for="token">{e(t["token"])}</label>
<input id="token" type="password" autocomplete="off" spellcheck="false">
<p><button type="button" id="save">{e(t["save"])}</button>
<button type="button" id="forget" class="secondary">{e(t["forget"])}</button></p>
<label for="assignment">{e(t["assignment"])}</label>
<select id="assignment"></select>
<label for="files">{e(t["files"])}</label>
<input id="files" type="file" multiple accept=".py,.ipynb">
<p><button type="submit" id="submit">{e(t["submit"])}</button></p>
</form>
<h2>{e(t["status"])}</h2>
<p id="status" role="status" aria-live="polite"></p>
<h2>{e(t["feedback"])}</h2>
<div id="feedback" tabindex="-1"></div>
<h2>{e(t["history"])}</h2>
<p><button type="button" id="load" class="secondary">{e(t["load"])}</button></p>
<ul id="history"></ul>
</main>
<script type="application/json" id="texts">{texts}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""

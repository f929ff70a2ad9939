// The presenter's students: who joined (in join order), removing one (a fake name, say: their
// sockets close and their answers go), and the cap on how many may join. The words come from the
// page (data-* of #students-box), so this module adds no strings of its own.
const $ = (id) => document.getElementById(id);
let students = [];

export function setup(send) {
  const form = $("cap-form");
  if (!form) return;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const value = $("student-cap").value.trim();
    send({ action: "cap", cap: value === "" ? null : Number(value) });
  });
  $("student-list").addEventListener("click", (ev) => {
    const button = ev.target.closest("button[data-student]");
    if (button) send({ action: "remove", student: Number(button.dataset.student) });
  });
}

export function onMessage(m) {
  if (m.type === "state") {
    students = m.students || [];
    showCap(m.cap);
  } else if (m.type === "joined" && m.student) {
    students = [...students.filter((s) => s.id !== m.student.id), m.student];
  } else if (m.type === "removed") {
    students = students.filter((s) => s.id !== m.student);
  } else if (m.type === "cap") {
    showCap(m.cap);
    return;
  } else {
    return;
  }
  draw();
}

function showCap(cap) {
  const input = $("student-cap");
  if (input) input.value = cap === null || cap === undefined ? "" : String(cap);
}

function draw() {
  const list = $("student-list");
  if (!list) return;
  const label = $("students-box").dataset.remove;
  list.replaceChildren(
    ...students.map((s) => {
      const item = document.createElement("li");
      const name = document.createElement("span");
      name.textContent = s.nickname;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "button small";
      button.dataset.student = String(s.id);
      button.textContent = label;
      item.append(name, " ", button);
      return item;
    }),
  );
  $("students-count").textContent = String(students.length);
}

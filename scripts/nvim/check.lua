-- Drives `isa lsp` from a real Neovim, headless: rename, quick fixes, inlay hints and
-- (Neovim >= 0.9) watched files, each checked by what the editor then holds and by
-- `isa check` on the files it wrote. Run by scripts/nvim-check.sh; writes one line
-- per check to $NVIM_CHECK_LOG and quits with status 1 at the first failure.
local isa = os.getenv("ISA_BIN")
local dir = os.getenv("SPEC_DIR")
local log = assert(io.open(os.getenv("NVIM_CHECK_LOG"), "w"))

local function say(s)
  log:write(s .. "\n")
  log:flush()
end

local function fail(s)
  say("FAIL: " .. s)
  log:close()
  vim.cmd("cquit 1")
end

local function check(ok, what)
  if not ok then
    fail(what)
  end
end

say("nvim " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor) .. "." .. tostring(vim.version().patch))

-- The setup the README gives for this version.
local function attach()
  if vim.fn.has("nvim-0.11") == 1 then
    vim.lsp.config("isa", { cmd = { isa, "lsp" }, filetypes = { "isa" }, root_markers = { ".git" } })
    vim.lsp.enable("isa")
  elseif vim.fn.has("nvim-0.8") == 1 then
    vim.api.nvim_create_autocmd("FileType", {
      pattern = "isa",
      callback = function()
        vim.lsp.start({ name = "isa", cmd = { isa, "lsp" }, root_dir = vim.fn.expand("%:p:h") })
      end,
    })
  else
    local id
    vim.api.nvim_create_autocmd("FileType", {
      pattern = "isa",
      callback = function()
        id = id or vim.lsp.start_client({ name = "isa", cmd = { isa, "lsp" }, root_dir = vim.fn.expand("%:p:h") })
        vim.lsp.buf_attach_client(0, id)
      end,
    })
  end
end

local function clients(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  return vim.lsp.buf_get_clients(buf)
end

local function open(name)
  vim.cmd("edit " .. dir .. "/" .. name)
  vim.bo.filetype = "isa"
  local buf = vim.api.nvim_get_current_buf()
  check(vim.wait(20000, function()
    for _, c in pairs(clients(buf)) do
      if c.initialized ~= false then
        return true
      end
    end
    return false
  end, 50), "the server attaches to " .. name)
  return buf
end

local function errors(buf)
  return vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
end

local function wait_errors(buf, pred, what)
  check(vim.wait(20000, function()
    return pred(errors(buf))
  end, 50), what)
end

local function isa_check()
  local out = vim.fn.system({ isa, "check", dir })
  return vim.v.shell_error == 0, out
end

local function find(buf, needle)
  for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local c = l:find(needle, 1, true)
    if c then
      return i - 1, c - 1
    end
  end
  fail("`" .. needle .. "` not in the buffer")
end

local function position(buf, line, col)
  return { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = line, character = col } }
end

attach()

-- 1. Rename a type used in four files, from a use in sync.isa.
local sync = open("sync.isa")
wait_errors(sync, function(e) return #e == 0 end, "the bundled spec opens without errors")
local line, col = find(sync, "> Reg ")
vim.api.nvim_win_set_cursor(0, { line + 1, col + 2 })
vim.lsp.buf.rename("Regx")
check(vim.wait(20000, function()
  return vim.api.nvim_buf_get_lines(sync, line, line + 1, false)[1]:find("> Regx ", 1, true) ~= nil
end, 50), "rename changes the use under the cursor")
vim.cmd("silent wall")
local ok, out = isa_check()
check(ok, "the spec checks clean after the rename:\n" .. out)
for _, f in ipairs({ "base.isa", "bru.isa", "misc.isa", "sync.isa" }) do
  local text = table.concat(vim.fn.readfile(dir .. "/" .. f), "\n")
  check(text:find("Regx", 1, true) ~= nil, "rename reached " .. f)
  check(text:find("> Reg ", 1, true) == nil, "no use of the old name is left in " .. f)
end
say("ok: rename of a type across four files; isa check clean after")

-- 2. Quick fixes: a misspelt type, a value not in its enumeration.
local udp = open("udp.isa")
local function quick_fix(from, to, word)
  local l, c = find(udp, from)
  local text = vim.api.nvim_buf_get_lines(udp, l, l + 1, false)[1]
  vim.api.nvim_buf_set_lines(udp, l, l + 1, false, { text:sub(1, c) .. to .. text:sub(c + #from + 1) })
  -- The error this edit makes (one naming the misspelt word), not any error shown.
  local e
  wait_errors(udp, function(es)
    for _, x in ipairs(es) do
      if x.message:find(word, 1, true) then
        e = x
        return true
      end
    end
    return false
  end, "an error naming `" .. word .. "` for `" .. to .. "`")
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(udp) },
    range = { start = { line = e.lnum, character = e.col }, ["end"] = { line = e.end_lnum, character = e.end_col } },
    context = { diagnostics = {} },
  }
  -- Asked up to three times, a second apart: once (2026-11-27, a CI run on a loaded
  -- machine, not reproduced since) the first answer held no action. A late answer is
  -- said in the log with what came before it; no action at all fails with the error
  -- and the answers.
  local action, answers = nil, {}
  for _ = 1, 3 do
    local res, err = vim.lsp.buf_request_sync(udp, "textDocument/codeAction", params, 10000)
    for _, r in pairs(res or {}) do
      action = action or (r.result or {})[1]
    end
    if action ~= nil then
      break
    end
    table.insert(answers, vim.inspect({ result = res, err = err }))
    vim.wait(1000)
  end
  check(action ~= nil and action.edit ~= nil, "a quick fix for `" .. to .. "` at " .. vim.inspect(e)
    .. "; answers: " .. table.concat(answers, ", "))
  if #answers > 0 then
    say("note: the quick fix for `" .. to .. "` came at try " .. (#answers + 1) .. "; before: " .. table.concat(answers, ", "))
  end
  vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
  wait_errors(udp, function(e2) return #e2 == 0 end, "the quick fix `" .. action.title .. "` removes the error")
  say("ok: quick fix `" .. action.title .. "` for `" .. to .. "`")
end
quick_fix("UReg urd;", "URgeg urd;", "URgeg")
quick_fix("upg.not=False;", "upg.not=Flase;", "Flase")
vim.cmd("silent wall")
ok, out = isa_check()
check(ok, "the spec checks clean after the quick fixes:\n" .. out)

-- 3. Inlay hints on field lines.
local hl, _ = find(udp, "field<16, 6> UReg urd;")
local res = vim.lsp.buf_request_sync(udp, "textDocument/inlayHint", {
  textDocument = { uri = vim.uri_from_bufnr(udp) },
  range = { start = { line = hl, character = 0 }, ["end"] = { line = hl + 1, character = 0 } },
}, 10000)
local labels = {}
for _, r in pairs(res or {}) do
  for _, h in ipairs(r.result or {}) do
    if h.position.line == hl then
      table.insert(labels, h.label)
    end
  end
end
check(#labels == 1 and labels[1] == "bits 16–21", "the bits hint on a field line: " .. vim.inspect(labels))
say("ok: inlay hint `" .. labels[1] .. "` on `field<16, 6> UReg urd;`")

-- 4. A file changed on disk (not open) updates the diagnostics without an edit. Neovim
-- registers file watchers from 0.9 on (0.10 on Linux without inotify-tools polls).
if vim.fn.has("nvim-0.9") == 1 then
  local misc = dir .. "/misc.isa"
  local text = vim.fn.readfile(misc)
  local changed = {}
  for i, l in ipairs(text) do
    changed[i] = (l:gsub("> Regx ", "> Rgg ", 1))
  end
  vim.fn.writefile(changed, misc)
  local uri = vim.uri_from_fname(misc)
  check(vim.wait(20000, function()
    for _, d in ipairs(vim.diagnostic.get(nil, { severity = vim.diagnostic.severity.ERROR })) do
      if vim.uri_from_bufnr(d.bufnr) == uri and d.message:find("Rgg", 1, true) then
        return true
      end
    end
    return false
  end, 100), "a change on disk of unopened misc.isa is diagnosed")
  say("ok: misc.isa changed on disk, diagnosed without an edit")
else
  say("not run: watched files (Neovim registers file watchers from 0.9 on)")
end

log:close()
vim.cmd("qall!")

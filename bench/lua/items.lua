-- wrk script for the data bench. Arguments after `--`:
--   post <collection path> <run prefix>   POSTs new items whose ids never repeat
--   get <collection path> <item count>    GETs existing items item-1 .. item-<count>
-- Every response outside 2xx is counted, so a run that measured 409s or 404s can be
-- refused; done() prints the counts on a line the bench parses.
local threads = {}

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

local mode, path, prefix, count
local counter = 0
bad = 0
sample = 0

-- About 200 characters, the size of a fixture item's body, so a POST writes what a
-- fixture item weighs.
local BODY = string.rep("posted by the data bench, one line of filler text; ", 4)
local HEADERS = { ["Content-Type"] = "application/json" }

function init(args)
  mode, path = args[1], args[2]
  if mode == "post" then
    -- The thread number keeps two threads' ids apart; the prefix keeps two runs apart.
    prefix = args[3] .. "-t" .. tid .. "-"
  else
    count = tonumber(args[3])
    -- Threads start at different points so they do not walk the same ids in step.
    counter = (tid - 1) * 104729
  end
end

function request()
  counter = counter + 1
  if mode == "post" then
    local id = prefix .. counter
    local body = string.format('{"id":"%s","title":"Posted item %d","body":"%s","tags":["bench","posted","t%d"],"n":%d}', id, counter, BODY, counter % 10, counter)
    return wrk.format("POST", path, HEADERS, body)
  end
  -- 7919 is prime, so the stride visits every id before repeating and spreads the
  -- reads over the whole dataset rather than one warm corner of it.
  return wrk.format("GET", path .. "/item-" .. ((counter * 7919) % count + 1))
end

function response(status)
  if status < 200 or status > 299 then
    bad = bad + 1
    if sample == 0 then sample = status end
  end
end

function done(summary)
  local total, first = 0, 0
  for _, thread in ipairs(threads) do
    total = total + thread:get("bad")
    if first == 0 then first = thread:get("sample") end
  end
  io.write(string.format("__DATA_BENCH__ requests=%d non2xx=%d sample=%d\n", summary.requests, total, first))
end

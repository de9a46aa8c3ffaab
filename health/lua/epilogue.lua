-- Every check ends here: assess gets obj as a table (an empty one if obj is not), and a Lua
-- error becomes an Unknown status, never a failed sync.
local ok, status, message = pcall(assess, tbl(obj) or {})
if not ok then
  return {status = "Unknown", message = "health check error: " .. tostring(status)}
end
return {status = status, message = message}

-- Every check ends here: a Lua error becomes an Unknown status, never a failed sync.
local ok, status, message = pcall(assess, obj)
if not ok then
  return {status = "Unknown", message = "health check error: " .. tostring(status)}
end
return {status = status, message = message}

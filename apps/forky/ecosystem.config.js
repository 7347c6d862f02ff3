// PM2's usual advice, as many projects ship it: as many instances as CPUs. PM2 counts os.cpus(),
// the host's, whatever the container's cap (the manifest declares it, so the answer names it).
module.exports = {
  apps: [{ name: 'forky', script: 'server.js', instances: 'max', exec_mode: 'cluster' }],
};

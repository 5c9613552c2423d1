# link leads out of the project to a folder of text files
mkdir -p ../outside && echo secret > ../outside/s.txt && ln -s ../outside link
